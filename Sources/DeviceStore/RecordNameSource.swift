import PrivateCloud
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where new records get their names.
public protocol RecordNameSource: Sendable {
    /// A name no other record has.
    func nextName() -> String
}

/// Random UUIDs, as apps use: for everything that need not replay.
public struct UUIDRecordNames: RecordNameSource {
    /// A source of random UUIDs.
    public init() {}
    public func nextName() -> String { UUID().uuidString }
}

/// UUID-shaped names from a seeded generator, so that a simulation replays with the same names.
public final class SeededRecordNames: RecordNameSource {
    private let generator: Mutex<SplitMix64>

    /// Creates a source.
    ///
    /// - Parameter seed: The seed; equal seeds give equal names.
    public init(seed: UInt64) {
        generator = Mutex(SplitMix64(seed: seed))
    }

    public func nextName() -> String {
        let (high, low) = generator.withLock { ($0.next(), $0.next()) }
        let hex = StableHash.hex(high) + StableHash.hex(low)
        let characters = Array(hex.uppercased())
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

import DeviceStore
import PrivateCloud
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Random field values a user might write, drawn from the run's generator.
enum RecordFactory {
    static let words = ["slept", "well", "tired", "headache", "walk", "clinic", "ibuprofen", "calm", "busy", "swim"]

    /// Fields for a new record of `type`: every required field, and each optional one half the time.
    static func fields(for type: RecordTypeSchema, now: Date, random: inout SplitMix64) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for field in type.fields where !field.isOptional || random.chance(0.5) {
            fields[field.name] = value(of: field.type, now: now, random: &random)
        }
        return fields
    }

    /// `count` copies of one ASCII character, as `String(repeating:count:)` makes them but in one pass: that
    /// appends the character `count` times, and the texts pasted near CloudKit's 1 MB limit made it a third of a
    /// simulated run (`make bench`, `simulated_speedup`).
    static func text(repeating character: Unicode.Scalar, count: Int) -> String {
        precondition(character.isASCII)
        return String(decoding: [UInt8](repeating: UInt8(character.value), count: max(count, 0)), as: UTF8.self)
    }

    /// A value of `type`.
    static func value(of type: FieldType, now: Date, random: inout SplitMix64) -> FieldValue {
        switch type {
        case .string:
            let count = 1 + Int(random.next() % 4)
            return .string(
                (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " "))
        case .int64: return .int64(Int64(random.next() % 11))
        case .double: return .double(Double(random.next() % 20_000) / 100)
        case .bool: return .bool(random.chance(0.5))
        case .bytes:
            return .bytes(Data((0..<Int(random.next() % 16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case .date: return .date(now.addingTimeInterval(-Double(random.next() % 86_400)))
        case .reference:
            return .reference(
                RecordReference(
                    recordID: RecordID(
                        uncheckedName: "REF-\(random.next() % 1000)",
                        zoneID: ZoneID(uncheckedName: SyncEngine.defaultZoneName))))
        case .location:
            return .location(
                Location(latitude: Double(random.next() % 180) - 90, longitude: Double(random.next() % 360) - 180))
        case .list(let element):
            return .list((0..<Int(random.next() % 4)).map { _ in value(of: element, now: now, random: &random) })
        }
    }
}

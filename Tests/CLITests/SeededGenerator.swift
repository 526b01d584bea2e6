import Foundation
import PrivateSync

/// A small seeded generator (the package's SplitMix64), so that a failing torture round can be replayed: each torture
/// suite draws from one, seeded by ``tortureSeed``, and prints its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var generator: SplitMix64

    /// The torture suites' seed: `PRIVATESYNC_TORTURE_SEED`, 11 by default.
    static var tortureSeed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_SEED"] ?? "") ?? 11
    }

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func next() -> UInt64 {
        generator.next()
    }
}

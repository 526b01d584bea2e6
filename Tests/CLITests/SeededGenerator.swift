import Foundation

/// A small seeded generator (SplitMix64), so that a failing torture round can be replayed: each torture suite draws
/// from one, seeded by ``tortureSeed``, and prints its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// The torture suites' seed: `PRIVATESYNC_TORTURE_SEED`, 11 by default.
    static var tortureSeed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_SEED"] ?? "") ?? 11
    }

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

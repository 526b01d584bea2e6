/// SplitMix64: a small, fast, seeded random number generator whose sequence is the same on every platform.
///
/// Everything in this package that draws random numbers takes one of these (never the system generator), so that a
/// seed reproduces a run exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    ///
    /// - Parameter seed: The seed; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `0..<1`, from the top 53 bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Whether an event of probability `probability` happens.
    public mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && nextUnit() < probability
    }
}

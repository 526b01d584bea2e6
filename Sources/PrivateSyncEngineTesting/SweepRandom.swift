/// The random numbers of one seed of a ``DelegateSweep``: what a user's action draws names and contents from, so
/// that the seed replays the run exactly.
public struct SweepRandom: Sendable {
    var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// The next number.
    ///
    /// - Returns: 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

    /// A number below `bound`.
    ///
    /// - Parameter bound: One more than the largest; above 0.
    /// - Returns: The number.
    public mutating func int(below bound: Int) -> Int { Int(generator.next() % UInt64(max(1, bound))) }

    /// Whether an event of a probability happens.
    ///
    /// - Parameter probability: From 0 to 1.
    /// - Returns: Whether it does.
    public mutating func chance(_ probability: Double) -> Bool { generator.chance(probability) }

    /// One element of a collection, or `nil` for an empty one.
    ///
    /// - Parameter elements: The elements.
    /// - Returns: One of them.
    public mutating func element<Element>(of elements: [Element]) -> Element? {
        elements.isEmpty ? nil : elements[int(below: elements.count)]
    }

    /// A new name, as a UUID's string would be one: 32 hexadecimal digits in a UUID's groups.
    ///
    /// - Returns: The name.
    public mutating func name() -> String {
        let digits = String(next(), radix: 16).leftPadded(16) + String(next(), radix: 16).leftPadded(16)
        let characters = Array(digits.uppercased())
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

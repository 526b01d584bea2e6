/// What an action throws when it fails after some of its writes went through (an import of several entries, each its
/// own transaction, that the process died in the middle of): the writes that went through are the user's, and the
/// sweep holds the app to them as to any other.
///
/// An action that makes one write, or makes all of them in one transaction, never needs it: it throws what it met.
public struct SweepActionInterrupted: Error, CustomStringConvertible {
    /// The writes that went through before the failure.
    public let writes: [SweepWrite]
    /// What the action met.
    public let underlying: any Error

    /// Creates the failure of an action interrupted after some writes.
    ///
    /// - Parameters:
    ///   - writes: The writes that went through.
    ///   - underlying: What the action met.
    public init(writes: [SweepWrite], underlying: any Error) {
        self.writes = writes
        self.underlying = underlying
    }

    /// What the action met, and what went through before.
    public var description: String {
        "\(underlying) (after \(writes.count) write(s) went through: \(writes.map(\.description).joined(separator: ", ")))"
    }
}

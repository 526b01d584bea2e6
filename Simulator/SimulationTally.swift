public import PrivateCloudFaults

/// What runs counted: of one run in its ``SimulationResult``, of many in a ``Sweep/Summary``, which adds the tallies
/// of its runs.
public struct SimulationTally: Sendable {
    /// Steps run (before and during heal).
    public var steps = 0
    /// Simulated seconds that passed.
    public var simulatedSeconds = 0.0
    /// Faults injected, by kind.
    public var faults: [FaultKind: Int] = [:]
    /// Crashes simulated.
    public var crashes = 0
    /// Individual invariant checks made.
    public var invariantChecks = 0
    /// Actions the scheduler ran between two container requests of a cycle (user actions and other devices' cycles).
    public var interleavings = 0
    /// Requests a low limit or an expired token refused, over the runs' persistent faults.
    public var persistentRefusals = 0
    /// Records created again under the name of one the same device deleted, once the delete had left.
    public var namesCreatedAgain = 0
    /// Names created on two devices of one account before either synced.
    public var namesCreatedTwice = 0
    /// Account round trips with an edit in between (issue 28's path).
    public var accountRoundTrips = 0
    /// Round trips whose process was killed inside the start-fresh back to the first account.
    public var roundTripsKilled = 0
    /// How many runs reached each path (a run counts once per path, however often it took it).
    public var pathSeeds: [SimulationPath: Int] = [:]

    /// Nothing counted yet.
    public init() {}

    /// Adds what `other` counted to this tally.
    ///
    /// - Parameter other: Another run's (or sweep's) tally.
    public mutating func add(_ other: SimulationTally) {
        steps += other.steps
        simulatedSeconds += other.simulatedSeconds
        crashes += other.crashes
        invariantChecks += other.invariantChecks
        interleavings += other.interleavings
        persistentRefusals += other.persistentRefusals
        namesCreatedAgain += other.namesCreatedAgain
        namesCreatedTwice += other.namesCreatedTwice
        accountRoundTrips += other.accountRoundTrips
        roundTripsKilled += other.roundTripsKilled
        for (kind, count) in other.faults { faults[kind, default: 0] += count }
        for (path, count) in other.pathSeeds { pathSeeds[path, default: 0] += count }
    }
}

/// What a ``DelegateSweep`` over many seeds found, and what it did.
public struct DelegateSweepReport: Sendable, CustomStringConvertible {
    /// How many seeds ran.
    public var seeds = 0
    /// Steps taken, over every seed (heal rounds not counted).
    public var steps = 0
    /// Devices crashed and relaunched.
    public var crashes = 0
    /// Faults scripted.
    public var faults = 0
    /// Simulated seconds, over every seed.
    public var simulatedSeconds = 0.0
    /// Every seed that broke an invariant.
    public var failures: [DelegateSweepFailure] = []
    /// Among ``crashes``, those inside one of the app's own writes (``SweepCrashPoint``; runs of the swarm only).
    public var crashesInsideWrites = 0
    /// Writes of the app's that failed as on a full disk, the process living on (``SweepCrashPoint``; runs of the
    /// swarm only).
    public var writesRefused = 0

    /// Creates an empty report.
    public init() {}

    /// Adds another report's counts and failures (the shards of one sweep).
    ///
    /// - Parameter other: The other report.
    public mutating func merge(_ other: DelegateSweepReport) {
        seeds += other.seeds
        steps += other.steps
        crashes += other.crashes
        crashesInsideWrites += other.crashesInsideWrites
        writesRefused += other.writesRefused
        faults += other.faults
        simulatedSeconds += other.simulatedSeconds
        failures += other.failures
    }

    /// The counts, then each failure.
    public var description: String {
        var lines = [
            "\(seeds) seed(s), \(steps) steps, \(crashes) crashes (\(crashesInsideWrites) inside the app's writes), "
                + "\(writesRefused) writes refused (disk full), \(faults) faults, "
                + "\(Int(simulatedSeconds)) simulated seconds, \(failures.count) failure(s)"
        ]
        lines += failures.map(\.description)
        return lines.joined(separator: "\n")
    }
}

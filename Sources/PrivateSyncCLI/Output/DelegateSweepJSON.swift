import PrivateSyncEngineTesting

/// `privatesync simulate --engine cksyncengine --json`: the counts of the sweep, each failure with its replay, and the
/// shard it ran.
struct DelegateSweepJSON: Encodable {
    /// One failing seed.
    struct Failure: Encodable {
        let seed: UInt64
        let invariant: String
        let message: String
        let replay: String
    }

    let engine = SimulatedEngine.cksyncengine.rawValue
    let seeds: Int
    let steps: Int
    let crashes: Int
    let faults: Int
    let simulatedSeconds: Double
    let failures: [Failure]
    let shard: [String: Int]
    /// Among `crashes`, those inside one of the app's own writes (runs of the swarm only).
    let crashesInsideWrites: Int
    /// Writes of the app's that failed as on a full disk, the process living on (runs of the swarm only).
    let writesRefused: Int
    /// How the runs drew their steps: `even` or `swarm`.
    let stepMix: String

    /// The JSON of a report.
    ///
    /// - Parameters:
    ///   - report: The sweep's report.
    ///   - shard: The shard it ran.
    ///   - stepMix: How its runs drew their steps.
    ///   - replay: The replay command of a seed.
    init(
        _ report: DelegateSweepReport, shard: (index: Int, count: Int), stepMix: SweepStepMix,
        replay: (UInt64) -> String
    ) {
        self.stepMix = stepMix.rawValue
        seeds = report.seeds
        steps = report.steps
        crashes = report.crashes
        crashesInsideWrites = report.crashesInsideWrites
        writesRefused = report.writesRefused
        faults = report.faults
        simulatedSeconds = report.simulatedSeconds
        failures = report.failures.map {
            Failure(seed: $0.seed, invariant: $0.invariant.rawValue, message: $0.message, replay: replay($0.seed))
        }
        self.shard = ["index": shard.index, "count": shard.count]
    }
}

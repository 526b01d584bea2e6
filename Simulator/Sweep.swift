import SimulatedWorld

/// Many seeded runs, and what they found together.
public struct Sweep: Sendable {
    /// What a sweep found: its runs' counts added up (``SimulationTally``, read as the summary's own properties),
    /// and its failures.
    @dynamicMemberLookup
    public struct Summary: Sendable {
        /// Seeds run.
        public var seeds = 0
        /// What the runs counted, added up.
        public var tally = SimulationTally()
        /// Every failing run, in seed order.
        public var failures: [SimulationResult] = []

        /// A count of the sweep's ``tally``, as `summary.steps`.
        public subscript<Value>(dynamicMember count: WritableKeyPath<SimulationTally, Value>) -> Value {
            get { tally[keyPath: count] }
            set { tally[keyPath: count] = newValue }
        }
    }

    /// The seeds a sweep of `count` seeds runs on shard `index` of `shards`: those whose remainder by `shards` is
    /// `index`, so that shards split a sweep without overlap and together cover it.
    ///
    /// - Parameters:
    ///   - count: Seeds in the whole sweep (0 to count - 1).
    ///   - index: This shard, 0-based.
    ///   - shards: How many shards.
    public static func seeds(count: Int, shard index: Int, of shards: Int) -> [UInt64] {
        stride(from: index, to: count, by: max(1, shards)).map(UInt64.init)
    }

    /// How many seeds ``seeds(count:shard:of:)`` returns, counted without listing them: a merge checks each shard's
    /// share of a sweep of up to 100,000,000 seeds, which as a list would take 800 MB.
    ///
    /// - Parameters:
    ///   - count: Seeds in the whole sweep, 0 or more.
    ///   - index: This shard, 0-based.
    ///   - shards: How many shards, 1 or more.
    /// - Returns: The number of seeds below `count` whose remainder by `shards` is `index`.
    static func seedCount(count: Int, shard index: Int, of shards: Int) -> Int {
        guard index < count else { return 0 }
        return (count - 1 - index) / max(1, shards) + 1
    }

    /// Runs `seeds`, one after another.
    ///
    /// - Parameters:
    ///   - seeds: The seeds.
    ///   - template: The shape of every run (its seed is replaced).
    ///   - progress: Called after each run with the summary so far and the run.
    /// - Returns: The summary.
    public static func run(
        seeds: [UInt64], template: SimulationOptions, progress: (Summary, SimulationResult) -> Void = { _, _ in }
    ) async -> Summary {
        var summary = Summary()
        for seed in seeds {
            var options = template
            options.seed = seed
            let result = await Simulation.run(options)
            summary.seeds += 1
            summary.tally.add(result.tally)
            if result.failure != nil { summary.failures.append(result) }
            progress(summary, result)
        }
        return summary
    }
}

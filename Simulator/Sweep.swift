public import PrivateCloud
import SimulatedWorld

/// Many seeded runs, and what they found together.
public struct Sweep: Sendable {
    /// What a sweep found.
    public struct Summary: Sendable {
        /// Seeds run.
        public var seeds = 0
        /// Steps run, over all seeds.
        public var steps = 0
        /// Simulated seconds, over all seeds.
        public var simulatedSeconds = 0.0
        /// Faults injected, by kind.
        public var faults: [FaultKind: Int] = [:]
        /// Crashes simulated.
        public var crashes = 0
        /// Invariant checks made.
        public var invariantChecks = 0
        /// Actions run between two container requests of a cycle.
        public var interleavings = 0
        /// Requests refused by persistent faults (a low limit, an expired token).
        public var persistentRefusals = 0
        /// Every failing run, in seed order.
        public var failures: [SimulationResult] = []
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
            summary.steps += result.steps
            summary.simulatedSeconds += result.simulatedSeconds
            summary.crashes += result.crashes
            summary.invariantChecks += result.invariantChecks
            summary.interleavings += result.interleavings
            summary.persistentRefusals += result.persistentRefusals
            for (kind, count) in result.faults { summary.faults[kind, default: 0] += count }
            if result.failure != nil { summary.failures.append(result) }
            progress(summary, result)
        }
        return summary
    }
}

import ContactsSampleSweep
import PartitionMirrorSweep
import PrivateSyncEngineTesting
import PrivateSyncFileSystem

extension Bench {
    /// How many seeds `make bench` sweeps for the delegate sweep's figures.
    static let delegateSweepSeeds: UInt64 = 100

    /// `delegate_sweep_speedup` and `delegate_sweep_seeds_per_second`: a sweep of Apple's sample delegate over the
    /// memory container (`SweptContacts`), simulated seconds per wall second, and seeds per second.
    ///
    /// - Returns: The two figures.
    /// - Throws: `BenchError` when a seed fails: a figure of a sweep that finds a bug would measure the bug.
    static func delegateSweepFigures() async throws -> [Figure] {
        var report = DelegateSweepReport()
        let seconds = await time {
            report = await SweptContacts.sweep().sweep(seeds: 0..<delegateSweepSeeds)
        }
        if let failure = report.failures.first { throw BenchError("the delegate sweep failed: \(failure)") }
        let inputs =
            "seeds=\(report.seeds) steps=\(report.steps) crashes=\(report.crashes) faults=\(report.faults) "
            + "simulated_s=\(Int(report.simulatedSeconds)) wall_s=\(format(seconds)) delegate=SweptContacts "
            + "backend=memory"
        return [
            Figure(
                name: "delegate_sweep_speedup", value: report.simulatedSeconds / seconds, floor: .atLeast(100_000),
                inputs: inputs),
            Figure(
                name: "delegate_sweep_seeds_per_second", value: Double(report.seeds) / seconds, floor: .atLeast(1),
                inputs: inputs),
        ]
    }

    /// `privatesync-bench delegate-sweep SEEDS [I/N] [files] [trace] [mirror]`: sweeps Apple's sample delegate (or,
    /// with `mirror`, the demo app's ``PartitionMirror``) over SEEDS seeds (the shard I of N of them), in memory or on
    /// files, and prints the report: every failing seed with its replay, and its timeline page under
    /// `delegate-sweep-timelines/`.
    ///
    /// - Parameter arguments: The arguments after the subcommand.
    static func delegateSweep(_ arguments: [String]) async {
        await exitOnFailure("delegate-sweep") {
            guard let seeds = arguments.first.flatMap({ UInt64($0) }) else {
                throw BenchError("usage: privatesync-bench delegate-sweep SEEDS [I/N] [files] [trace] [mirror]")
            }
            let shard = arguments.dropFirst().first { $0.contains("/") }.flatMap { text -> (Int, Int)? in
                let parts = text.split(separator: "/").compactMap { Int($0) }
                return parts.count == 2 && parts[1] > 0 && (0..<parts[1]).contains(parts[0])
                    ? (parts[0], parts[1]) : nil
            }
            let report =
                if arguments.contains("mirror") {
                    await sweep(seeds: seeds, shard: shard, arguments) { SweptPartitionMirror.sweep(configuration: $0) }
                } else {
                    await sweep(seeds: seeds, shard: shard, arguments) { SweptContacts.sweep(configuration: $0) }
                }
            for failure in report.failures {
                try FileSystem.createDirectory("delegate-sweep-timelines")
                try FileSystem.writeAtomically(
                    Array(failure.timelinePage.utf8), to: "delegate-sweep-timelines/seed-\(failure.seed).html")
            }
            if !report.failures.isEmpty { throw BenchError("\(report.failures.count) seed(s) failed") }
        }
    }

    /// Runs and prints one sweep of `delegate-sweep`.
    private static func sweep<App: SweptApp>(
        seeds: UInt64, shard: (Int, Int)?, _ arguments: [String],
        _ make: (DelegateSweep<App>.Configuration) -> DelegateSweep<App>
    ) async -> DelegateSweepReport {
        var configuration = DelegateSweep<App>.Configuration()
        if arguments.contains("files") { configuration.storage = .files }
        if arguments.contains("trace") {
            // On standard error, unbuffered: a trace shows where a seed that does not end stopped.
            configuration.trace = { writeError($0) }
        }
        var report = DelegateSweepReport()
        let sweep = make(configuration)
        let seconds = await time {
            report = await sweep.sweep(seeds: 0..<seeds, shard: shard.map { (index: $0.0, count: $0.1) })
        }
        print(report)
        print("wall_s=\(format(seconds)) seeds_per_s=\(format(Double(report.seeds) / seconds))")
        return report
    }
}

import ArgumentParsing
import DeviceStore
import PrivateCloud
import SimulatedWorld
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `privatesync simulate`.
struct SimulateCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "simulate", abstract: "Run seeded fault-injection simulations and check the invariants.",
            discussion: """
                Each seed fixes a whole run: devices, accounts, user actions, launches, crashes, account changes, \
                faults, then a heal phase. A failing seed prints the invariant broken, its last steps, and the \
                command that replays it. Exit 1 when any seed fails. With --engine cksyncengine the demo app syncs \
                as a delegate of the CKSyncEngine-shaped engine (PartitionMirror) and the delegate sweep checks it. \
                See docs/simulator.md.
                """,
            examples: [
                "privatesync simulate --seeds 1000", "privatesync simulate --seed 42 --trace",
                "privatesync simulate --seeds 10000 --shard 3/8",
                "privatesync simulate --seeds 1000000 --shard env --json > shard.json",
                "privatesync simulate --seed 42 --timeline seed-42.html",
                "privatesync simulate --engine cksyncengine --seeds 1000",
                "privatesync simulate --engine cksyncengine --swarm --seeds 1000",
            ],
            subcommands: [Merge.self], runsWithoutSubcommand: true)
    }

    @Option(
        valueName: "N", help: "Run seeds 0 to N-1 (default 100).",
        parsing: .wholeNumber(in: SweepReport.Configuration.sweepSeedCounts))
    var seeds: Int?
    @Option(valueName: "S", help: "Run one seed.", parsing: .seed) var seed: UInt64?
    @Option(
        valueName: "I/N|env",
        help:
            "Run only shard I (0-based) of N of the seeds; 'env' reads I and N from $PRIVATESYNC_SHARD_INDEX (or $JOB_COMPLETION_INDEX) and $PRIVATESYNC_SHARD_COUNT.",
        parsing: ShardArgument.parser)
    var shard: ShardArgument?
    @Option(
        valueName: "N", help: "Devices per run, 1 to 4 (default: drawn from the seed).",
        parsing: .wholeNumber(in: SweepReport.Configuration.deviceCounts))
    var devices: Int?
    @Option(
        valueName: "N", help: "Steps per run before the heal (default 200).",
        parsing: .wholeNumber(in: SweepReport.Configuration.stepCounts))
    var steps: Int?
    @Option(
        valueName: "memory|file", help: "Where the accounts' databases live (default memory).",
        parsing: .oneOf([("memory", .memory), ("file", .file)]))
    var backend: ContainerBackend?
    @Option(
        valueName: "PATH",
        help:
            "Write the timeline page: with --seed, to the file PATH; with a sweep, PATH/seed-S.html for every failing seed (PATH a folder)."
    )
    var timeline: String?
    @Option(
        valueName: "app|cksyncengine",
        help:
            "What syncs the demo app: its own engine (app, the default) or the CKSyncEngine-shaped engine with the app as its delegate (cksyncengine).",
        parsing: .oneOf([("app", .app), ("cksyncengine", .cksyncengine)]))
    var engine: SimulatedEngine?
    @Option(
        valueName: "app|cksyncengine",
        help:
            "The devices' build the app simulator runs: the app's own engine (app, the default) or CKSyncEngine with the app as its delegate (cksyncengine), under the same steps, interleavings and invariants; --engine cksyncengine runs the delegate sweep's own steps and oracle instead.",
        parsing: .build)
    var build: AppSyncEngine?
    @Flag(
        help:
            "With --engine cksyncengine: each run draws its own mix of steps from its seed (swarm testing), deeper into fewer things; the same seed is another run than without it."
    )
    var swarm: Bool
    @Flag(
        help:
            "With --swarm: no outages, and no busier interleavings, as the swarm ran before they existed (the seeds found then replay)."
    )
    var noOutages: Bool
    @Flag(help: "Print every step of the run (with --seed).") var trace: Bool
    @Flag(help: CommandHelp.json) var json: Bool
    @Flag(help: CommandHelp.coverage) var coverage: Bool

    func validate() throws {
        if seed != nil && seeds != nil { throw CLIError(.usage, "give --seed or --seeds, not both") }
        if engine == .cksyncengine && build != nil {
            throw CLIError(.usage, "--build chooses the app simulator's build; not with --engine cksyncengine")
        }
        if build == .cksyncengine && coverage {
            throw CLIError(.usage, "--coverage counts the app engine's paths; not with --build cksyncengine")
        }
        if engine == .cksyncengine && coverage {
            throw CLIError(.usage, "--coverage counts the app engine's paths; not with --engine cksyncengine")
        }
        if swarm && engine != .cksyncengine {
            throw CLIError(.usage, "--swarm mixes the delegate sweep's steps; give it with --engine cksyncengine")
        }
        if noOutages && !swarm {
            throw CLIError(.usage, "--no-outages leaves outages out of the swarm; give it with --swarm")
        }
        if engine == .cksyncengine, let devices, devices < 2 {
            throw CLIError(.usage, "the delegate sweep (--engine cksyncengine) runs 2 to 4 devices, not \(devices)")
        }
    }

    nonisolated func run(_ cli: CLI) async throws -> ExitCode {
        let steps = self.steps ?? SimulationOptions.defaultSteps
        let backend = self.backend ?? .memory
        let shard = try self.shard?.resolve(environment: ProcessInfo.processInfo.environment) ?? (index: 0, count: 1)
        let seeds: [UInt64]
        var sweepSeeds = 0
        if let seed {
            // One seed is a sweep of one: the first shard holds it.
            seeds = shard.index == 0 ? [seed] : []
        } else {
            sweepSeeds = self.seeds ?? 100
            seeds = Sweep.seeds(count: sweepSeeds, shard: shard.index, of: shard.count)
        }
        if trace && seeds.count != 1 {
            throw CLIError(.usage, "--trace replays one run: give --seed S")
        }
        if let timeline {
            if seed != nil {
                try PageFile.check(timeline, option: "--timeline")
            } else {
                try PageFile.checkFolder(timeline, option: "--timeline")
            }
        }
        if engine == .cksyncengine { return try await runDelegateSweep(shard: shard) }
        let template = SimulationOptions(
            seed: 0, devices: devices, steps: steps, backend: backend, keepFullTrace: trace,
            build: build ?? .appEngine)

        var progress = SweepProgress(
            total: seeds.count, enabled: Terminal.standardErrorIsTerminal && !json && seeds.count > 1)
        var traced: SimulationResult?
        let summary = await Sweep.run(seeds: seeds, template: template) { summary, run in
            if trace || timeline != nil && seeds.count == 1 { traced = run }
            progress.update(done: summary.seeds, failures: summary.failures.count)
        }
        progress.finish()
        // The one run of `--trace` kept every step (`keepFullTrace`).
        if trace {
            for line in traced?.trace ?? [] { Terminal.line(line) }
        }
        let configuration = SweepReport.Configuration(
            sweepSeeds: seed == nil ? sweepSeeds : nil, seed: seed, steps: steps, devices: devices,
            backend: backend.rawValue, build: (build ?? .appEngine).rawValue)
        // The one builder of replay commands, which `simulate merge` uses too.
        func replay(_ seed: UInt64) -> String { configuration.replay(seed: seed) }
        if let timeline {
            let pages = try Self.writeTimelines(
                to: timeline, oneSeed: seed != nil, traced: traced, failures: summary.failures, replay: replay)
            for page in pages where !json && !trace && page.path != "-" {
                Terminal.line("Timeline of seed \(page.seed): \(page.path)")
            }
        }
        let report = SweepReport(
            seeds: summary.seeds, steps: summary.steps, simulatedSeconds: summary.simulatedSeconds,
            faults: Dictionary(uniqueKeysWithValues: summary.faults.map { ($0.key.rawValue, $0.value) }),
            crashes: summary.crashes, invariantChecks: summary.invariantChecks, interleavings: summary.interleavings,
            persistentRefusals: summary.persistentRefusals,
            coverage: Dictionary(
                uniqueKeysWithValues: SimulationPath.all.map { ($0.name, summary.pathSeeds[$0] ?? 0) }),
            failures: summary.failures.map { run in
                SweepReport.Failure(
                    seed: run.seed, invariant: run.failure!.kind.number,
                    invariantName: run.failure!.kind.description, message: run.failure!.message,
                    step: run.failure!.step, lastSteps: Array(run.trace.suffix(20)), replay: replay(run.seed))
            },
            shard: SweepReport.Shard(index: shard.index, count: shard.count), configuration: configuration)
        if json {
            Terminal.json(report)
            return report.exitCode
        }
        for failure in report.failures.prefix(5) { failure.printText(lastSteps: true) }
        if summary.failures.count > 5 { Terminal.line("... and \(summary.failures.count - 5) more failing seeds") }
        Terminal.line(
            "Simulated \(summary.seeds) seed(s): \(summary.steps) steps, \(Int(summary.simulatedSeconds)) simulated seconds, "
                + "\(summary.crashes) crashes, \(summary.interleavings) interleaved actions, "
                + "\(summary.invariantChecks) invariant checks, \(summary.failures.count) failure(s)"
        )
        Terminal.line(
            "Faults injected: \(report.faultsText); requests refused by persistent faults: \(summary.persistentRefusals)"
        )
        Terminal.line(
            "Names used again: \(summary.namesCreatedAgain) created again after their delete, "
                + "\(summary.namesCreatedTwice) created on two devices; account round trips: "
                + "\(summary.accountRoundTrips), \(summary.roundTripsKilled) killed inside the start-fresh back")
        report.printCoverage(table: coverage)
        return report.exitCode
    }

    /// Writes the timeline pages `--timeline PATH` asks for: with `--seed`, the one run's page to PATH; with a sweep,
    /// PATH/seed-S.html for every failing run, and none for a passing one.
    ///
    /// - Parameters:
    ///   - path: The option's value (`-` for standard output, with `--seed`).
    ///   - oneSeed: Whether the command ran `--seed` (PATH a file) rather than a sweep (PATH a folder).
    ///   - traced: The one run of `--seed`, kept whole.
    ///   - failures: The sweep's failing runs.
    ///   - replay: The replay command of a seed.
    /// - Returns: Each page written and the seed it shows, in the order written.
    /// - Throws: `CLIError` when a page cannot be written.
    static func writeTimelines(
        to path: String, oneSeed: Bool, traced: SimulationResult?, failures: [SimulationResult],
        replay: (UInt64) -> String
    ) throws -> [(path: String, seed: UInt64)] {
        var pages: [(String, SimulationResult)] = []
        if oneSeed {
            if let traced { pages.append((path, traced)) }
        } else {
            pages = failures.map { (path + "/seed-\($0.seed).html", $0) }
        }
        for (page, run) in pages {
            try PageFile.write(TimelinePage.render(run, replay: replay(run.seed)), to: page, option: "--timeline")
        }
        return pages.map { (path: $0.0, seed: $0.1.seed) }
    }
}

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

extension CLI {
    func simulate() async throws -> ExitCode {
        func number(_ name: String, _ range: ClosedRange<Int>) throws(CLIError) -> Int? {
            guard let text = command.option(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw CLIError(
                    .dataError,
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound); got '\(TextEscaping.escape(text.prefix(40)))'"
                )
            }
            return value
        }
        let devices = try number("devices", 1...4)
        let steps = try number("steps", 0...1_000_000) ?? SimulationOptions.defaultSteps
        let backend = command.option("backend").flatMap(ContainerBackend.init(rawValue:)) ?? .memory
        var shard = (index: 0, count: 1)
        if let text = command.option("shard") {
            shard = try ShardArgument.parse(text, environment: ProcessInfo.processInfo.environment)
        }
        let seeds: [UInt64]
        var sweepSeeds = 0
        if let text = command.option("seed") {
            guard command.option("seeds") == nil else { throw CLIError(.usage, "give --seed or --seeds, not both") }
            guard let seed = UInt64(text) else {
                throw CLIError(
                    .dataError, "--seed must be a whole number; got '\(TextEscaping.escape(text.prefix(40)))'")
            }
            // One seed is a sweep of one: the first shard holds it.
            seeds = shard.index == 0 ? [seed] : []
        } else {
            sweepSeeds = try number("seeds", 1...100_000_000) ?? 100
            seeds = Sweep.seeds(count: sweepSeeds, shard: shard.index, of: shard.count)
        }
        if command.flag("trace") && seeds.count != 1 {
            throw CLIError(.usage, "--trace replays one run: give --seed S")
        }
        let timeline = command.option("timeline")
        if let timeline {
            if command.option("seed") != nil {
                try PageFile.check(timeline, option: "--timeline")
            } else {
                try PageFile.checkFolder(timeline, option: "--timeline")
            }
        }
        var template = SimulationOptions(
            seed: 0, devices: devices, steps: steps, backend: backend, keepFullTrace: command.flag("trace"))
        if let bug = command.option("plant").flatMap(PlantedBug.init(rawValue:)) {
            template.hooks = SimulationHooks(plantedBugs: [bug])
        }

        var progress = SweepProgress(
            total: seeds.count, enabled: Terminal.standardErrorIsTerminal && !json && seeds.count > 1)
        var traced: SimulationResult?
        let summary = await Sweep.run(seeds: seeds, template: template) { summary, run in
            if command.flag("trace") || timeline != nil && seeds.count == 1 { traced = run }
            progress.update(done: summary.seeds, failures: summary.failures.count)
        }
        progress.finish()
        // The one run of `--trace` kept every step (`keepFullTrace`).
        if command.flag("trace") {
            for line in traced?.trace ?? [] { Terminal.line(line) }
        }
        func replay(_ seed: UInt64) -> String {
            var parts = ["privatesync simulate --seed \(seed)"]
            if let devices { parts.append("--devices \(devices)") }
            if steps != SimulationOptions.defaultSteps { parts.append("--steps \(steps)") }
            if backend != .memory { parts.append("--backend \(backend.rawValue)") }
            if let plant = command.option("plant") { parts.append("--plant \(plant)") }
            return parts.joined(separator: " ") + " --trace"
        }
        if let timeline {
            var pages: [(String, SimulationResult)] = []
            if command.option("seed") != nil {
                if let traced { pages.append((timeline, traced)) }
            } else {
                pages = summary.failures.map { (timeline + "/seed-\($0.seed).html", $0) }
            }
            for (path, run) in pages {
                try PageFile.write(TimelinePage.render(run, replay: replay(run.seed)), to: path)
                if !json && !command.flag("trace") { Terminal.line("Timeline of seed \(run.seed): \(path)") }
            }
        }
        let report = SweepReport(
            seeds: summary.seeds, steps: summary.steps, simulatedSeconds: summary.simulatedSeconds,
            faults: Dictionary(uniqueKeysWithValues: summary.faults.map { ($0.key.rawValue, $0.value) }),
            crashes: summary.crashes, invariantChecks: summary.invariantChecks, interleavings: summary.interleavings,
            persistentRefusals: summary.persistentRefusals,
            failures: summary.failures.map { run in
                SweepReport.Failure(
                    seed: run.seed, invariant: run.failure!.invariant.rawValue,
                    invariantName: run.failure!.invariant.description, message: run.failure!.message,
                    step: run.failure!.step, lastSteps: Array(run.trace.suffix(20)), replay: replay(run.seed))
            },
            shard: SweepReport.Shard(index: shard.index, count: shard.count),
            configuration: SweepReport.Configuration(
                sweepSeeds: command.option("seed") == nil ? sweepSeeds : nil,
                seed: command.option("seed").flatMap { UInt64($0) }, steps: steps, devices: devices,
                backend: backend.rawValue, plant: command.option("plant")))
        if json {
            Terminal.json(report)
            return summary.failures.isEmpty ? .success : .checkFailed
        }
        for run in summary.failures.prefix(5) {
            Terminal.line("Seed \(run.seed) broke invariant \(run.failure!.invariant) at step \(run.failure!.step):")
            Terminal.line("  \(run.failure!.message)")
            Terminal.line("  last steps:")
            for line in run.trace.suffix(20) { Terminal.line("    \(line)") }
            Terminal.line("  replay: \(replay(run.seed))")
        }
        if summary.failures.count > 5 { Terminal.line("... and \(summary.failures.count - 5) more failing seeds") }
        let faults = summary.faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        Terminal.line(
            "Simulated \(summary.seeds) seed(s): \(summary.steps) steps, \(Int(summary.simulatedSeconds)) simulated seconds, "
                + "\(summary.crashes) crashes, \(summary.interleavings) interleaved actions, "
                + "\(summary.invariantChecks) invariant checks, \(summary.failures.count) failure(s)"
        )
        Terminal.line(
            "Faults injected: \(faults.isEmpty ? "none" : faults); requests refused by persistent faults: \(summary.persistentRefusals)"
        )
        return summary.failures.isEmpty ? .success : .checkFailed
    }
}

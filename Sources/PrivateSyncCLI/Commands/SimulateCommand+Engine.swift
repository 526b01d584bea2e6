import PartitionMirrorSweep
import PrivateSyncEngineTesting
import SimulatedWorld
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SimulateCommand {
    /// The steps of a run of the delegate sweep unless `--steps` says otherwise: its own default.
    static let delegateSweepSteps = DelegateSweep<SweptPartitionMirror>.Configuration().steps

    /// `privatesync simulate --engine cksyncengine`: the demo app as a delegate of the CKSyncEngine-shaped engine
    /// (`PartitionMirror`), swept by `DelegateSweep` (docs/simulator.md, "The demo app through the CKSyncEngine-shaped
    /// engine").
    ///
    /// - Parameter shard: The shard to run.
    /// - Returns: `checkFailed` when a seed fails, else `success`.
    /// - Throws: `CLIError` for a timeline page that cannot be written.
    func runDelegateSweep(shard: (index: Int, count: Int)) async throws -> ExitCode {
        var configuration = DelegateSweep<SweptPartitionMirror>.Configuration()
        configuration.storage = backend == .file ? .files : .memory
        if let steps { configuration.steps = steps }
        if let devices { configuration.devices = devices...devices }
        if swarm { configuration.stepMix = .swarm }
        configuration.outages = !noOutages
        if trace { configuration.trace = { Terminal.line($0) } }
        let sweep = SweptPartitionMirror.sweep(configuration: configuration)
        let seeds: [UInt64] =
            if let seed { shard.index == 0 ? [seed] : [] } else {
                Sweep.seeds(count: self.seeds ?? 100, shard: shard.index, of: shard.count)
            }
        var progress = SweepProgress(
            total: seeds.count, enabled: Terminal.standardErrorIsTerminal && !json && seeds.count > 1)
        var report = DelegateSweepReport()
        for seed in seeds {
            report.merge(await sweep.run(seed: seed).report)
            progress.update(done: report.seeds, failures: report.failures.count)
        }
        progress.finish()
        if let timeline {
            let pages =
                seed != nil
                ? report.failures.map { (timeline, $0) }
                : report.failures.map { (timeline + "/seed-\($0.seed).html", $0) }
            for (path, failure) in pages {
                try PageFile.write(failure.timelinePage, to: path, option: "--timeline")
                if !json && path != "-" { Terminal.line("Timeline of seed \(failure.seed): \(path)") }
            }
        }
        if json {
            Terminal.json(DelegateSweepJSON(report, shard: shard, stepMix: configuration.stepMix, replay: replay))
            return report.failures.isEmpty ? .success : .checkFailed
        }
        for failure in report.failures.prefix(5) {
            Terminal.line("Seed \(failure.seed) broke \(failure.invariant): \(failure.message)")
            for line in failure.timeline.suffix(12) { Terminal.line("  " + line) }
            Terminal.line("  Replay: \(replay(failure.seed))")
        }
        if report.failures.count > 5 { Terminal.line("... and \(report.failures.count - 5) more failing seeds") }
        Terminal.line(
            "Simulated \(report.seeds) seed(s) through the CKSyncEngine-shaped engine: \(report.steps) steps, "
                + "\(Int(report.simulatedSeconds)) simulated seconds, \(report.crashes) crashes"
                + (swarm
                    ? " (\(report.crashesInsideWrites) inside the app's own writes), \(report.writesRefused) writes "
                        + "refused (disk full)" : "")
                + ", \(report.faults) faults, \(report.failures.count) failure(s)")
        return report.failures.isEmpty ? .success : .checkFailed
    }

    /// The command that replays one seed of this sweep.
    ///
    /// - Parameter seed: The seed.
    /// - Returns: The command.
    func replay(_ seed: UInt64) -> String {
        var words = ["privatesync simulate --engine cksyncengine --seed \(seed)"]
        if backend == .file { words.append("--backend file") }
        if swarm { words.append("--swarm") }
        if noOutages { words.append("--no-outages") }
        if let steps { words.append("--steps \(steps)") }
        if let devices { words.append("--devices \(devices)") }
        return words.joined(separator: " ") + " --trace"
    }
}

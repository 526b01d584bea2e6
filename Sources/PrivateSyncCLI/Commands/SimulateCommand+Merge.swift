import ArgumentParsing
import Simulator

extension SimulateCommand {
    /// `privatesync simulate merge`.
    struct Merge: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "merge",
                abstract: "Merge the JSON of the shards of one sweep (simulate --shard I/N --json).",
                discussion:
                    "Sums the shards and lists every failure with its replay command, rebuilt from its seed and the run's configuration. Refuses (65) a set that is not exactly the shards of one run: a shard missing or repeated, another shard count or configuration (seeds, steps, devices, backend); and a file holding what no run writes: a key given twice, a negative count, sums that overflow, an unknown fault kind or invariant. Exit 1 when any seed failed.",
                examples: ["privatesync simulate merge shard-*.json"])
        }

        @Argument(valueName: "FILE", help: "A shard's JSON.") var files: [String]
        @Flag(help: CommandHelp.json) var json: Bool
        @Flag(help: CommandHelp.coverage) var coverage: Bool

        /// The most a shard report file may hold: a shard's JSON is a few hundred bytes plus about 3 KB per failing
        /// seed, so this is room for tens of thousands of failures.
        static let shardReportLimit = 256 * 1_048_576

        /// `simulate merge FILE... [--json]`: merges the JSON of `simulate --shard I/N --json` runs into the sweep's
        /// report, refusing a set that is not exactly the shards of one run.
        ///
        /// - Returns: 0 when no seed failed, 1 when some did.
        /// - Throws: ``CLIError`` 66 for a missing file, 74 for an unreadable one, 65 for a file that is not a shard
        ///   report (a key given twice or unknown, a value of the wrong type), one holding a value no run writes (a
        ///   negative count, an unknown fault kind or invariant, a failing seed outside its shard), shards whose sums
        ///   overflow, or a set of shards that does not make one whole run (missing, repeated, another shard count
        ///   or configuration, a shard's seed count off).
        func run(_ cli: CLI) throws -> ExitCode {
            var reports: [(file: String, report: SweepReport)] = []
            for file in files {
                let shown = TextEscaping.name(file)
                let bytes = try BoundedFileRead.read(file, limit: Self.shardReportLimit) { code, reason in
                    switch code {
                    case .notFound: "no shard report at \(shown)"
                    case .isFolder: "\(shown) is a folder, not a shard report"
                    case .tooLarge: "\(shown) holds more than \(Self.shardReportLimit) bytes: not a shard report"
                    case .unreadable: "cannot read \(shown): \(reason)"
                    }
                }
                do {
                    reports.append((shown, try SweepReport(json: bytes, file: shown)))
                } catch {
                    // The reader's words say what is wrong and where (a key given twice, a value of the wrong type).
                    let reason = error.underlying.map { ": \($0)" } ?? ""
                    throw CLIError(
                        .dataError,
                        "\(shown) is not the JSON of 'privatesync simulate --json' (one object with seeds, steps, faults, failures, shard, configuration)\(reason)"
                    )
                }
            }
            let merged = try SweepReport.merge(reports)
            if json {
                Terminal.json(merged)
                return merged.exitCode
            }
            for failure in merged.failures.prefix(5) { failure.printText(lastSteps: false) }
            if merged.failures.count > 5 {
                Terminal.line("... and \(merged.failures.count - 5) more failing seeds:")
                for failure in merged.failures.dropFirst(5) { Terminal.line("  replay: \(failure.replay)") }
            }
            Terminal.line(
                "Merged \(merged.shards ?? 0) shard(s): \(merged.seeds) seed(s), \(merged.steps) steps, "
                    + "\(merged.simulatedSecondsText) simulated seconds, \(merged.crashes) crashes, "
                    + "\(merged.invariantChecks) invariant checks, \(merged.failures.count) failure(s)")
            Terminal.line("Faults injected: \(merged.faultsText)")
            merged.printCoverage(table: coverage)
            return merged.exitCode
        }
    }
}

import Simulator

/// A sweep's report as `simulate` and `simulate merge` show it: the same exit code, fault list and failure lines
/// for a sweep and for the shards merged into one.
extension SweepReport {
    /// The exit code of a sweep: 0 when no seed failed, 1 when some did.
    var exitCode: ExitCode { failures.isEmpty ? .success : .checkFailed }

    /// The simulated seconds in whole seconds, as the summary line prints them; past `Int.max` (a merge of shard
    /// files may sum to any finite number, and `Int(_:)` would trap) the number as it is.
    var simulatedSecondsText: String {
        Int(exactly: simulatedSeconds.rounded(.towardZero)).map(String.init) ?? "\(simulatedSeconds)"
    }

    /// The faults injected, `kind count` by kind in name order and separated by commas, or `none`.
    var faultsText: String {
        faults.isEmpty
            ? "none" : faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

extension SweepReport {
    /// Prints how many of the simulator's paths the sweep's seeds reached, and each path reached by fewer than
    /// ``SweepReport/rarePathShare`` of them (a finding about the generator); with `table`, every path's count.
    ///
    /// - Parameter table: Whether to print the whole table.
    func printCoverage(table: Bool) {
        guard let coverage else { return }
        let rare = rarePaths
        let share = Int(Self.rarePathShare * 100)
        var line =
            "Coverage: \(coverage.count - rare.count) of \(coverage.count) paths reached by at least \(share)% of the seeds"
        if !rare.isEmpty {
            line += "; below: " + rare.map { "\($0.path) (\($0.seeds))" }.joined(separator: ", ")
        }
        Terminal.line(line)
        guard table else { return }
        let width = coverage.keys.map(\.count).max() ?? 0
        for (path, count) in coverage.sorted(by: { $0.key < $1.key }) {
            let percent = seeds > 0 ? Double(count) * 100 / Double(seeds) : 0
            let padding = String(repeating: " ", count: width - path.count)
            let tenths = (percent * 10).rounded() / 10
            Terminal.line("  \(path)\(padding)  \(count) (\(tenths)%)")
        }
    }
}

extension SweepReport.Failure {
    /// Prints the failing seed: what it broke and where, what was found, the trace's last steps when asked for, and
    /// the command that replays it.
    ///
    /// - Parameter lastSteps: Whether to print the trace's last steps (a sweep does; a merge leaves them out).
    func printText(lastSteps: Bool) {
        Terminal.line("Seed \(seed) \(verdict) at step \(step):")
        Terminal.line("  \(message)")
        if lastSteps {
            Terminal.line("  last steps:")
            for line in self.lastSteps { Terminal.line("    \(line)") }
        }
        Terminal.line("  replay: \(replay)")
    }
}

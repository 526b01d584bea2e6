extension SweepReport {
    /// Merges the reports of the shards of one sweep into the sweep's report: the sums, and every failure in seed
    /// order with its replay command.
    ///
    /// The set must be whole: every report names its shard and configuration, all with the same shard count and
    /// configuration, each shard exactly once, each having run its share of the seeds.
    ///
    /// - Parameter reports: Each file's name (for messages) and report, in any order.
    /// - Returns: The merged report (``shards`` set, ``shard`` `nil`).
    /// - Throws: ``SweepMergeError`` naming the first problem and the files concerned.
    public static func merge(_ reports: [(file: String, report: SweepReport)]) throws(SweepMergeError) -> SweepReport {
        guard !reports.isEmpty else { throw SweepMergeError(.missingShard, "no shard reports to merge") }
        var shards: [(file: String, shard: Shard, configuration: Configuration)] = []
        for (file, report) in reports {
            guard let shard = report.shard, let configuration = report.configuration else {
                throw SweepMergeError(.notAShardReport, "\(file) names no shard and configuration")
            }
            shards.append((file, shard, configuration))
        }
        let count = shards[0].shard.count
        if let other = shards.first(where: { $0.shard.count != count }) {
            throw SweepMergeError(
                .differentShardCounts,
                "\(shards[0].file) is shard \(shards[0].shard.index)/\(count) but \(other.file) is shard "
                    + "\(other.shard.index)/\(other.shard.count): the shards of one sweep share their count")
        }
        let configuration = shards[0].configuration
        if let other = shards.first(where: { $0.configuration != configuration }) {
            throw SweepMergeError(
                .differentConfigurations,
                "\(shards[0].file) and \(other.file) come from different runs: "
                    + "\(differences(configuration, other.configuration))")
        }
        var byIndex: [Int: String] = [:]
        for entry in shards {
            if let earlier = byIndex[entry.shard.index] {
                throw SweepMergeError(
                    .repeatedShard, "shard \(entry.shard.index)/\(count) is given twice: \(earlier) and \(entry.file)")
            }
            byIndex[entry.shard.index] = entry.file
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            let shown = missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
            throw SweepMergeError(
                .missingShard,
                "\(missing.count) of \(count) shard(s) missing: \(shown)\(missing.count > 10 ? ", ..." : "")")
        }
        var merged = SweepReport(
            seeds: 0, steps: 0, simulatedSeconds: 0, faults: [:], crashes: 0, invariantChecks: 0, failures: [],
            shard: nil, shards: count, configuration: configuration)
        for (file, report) in reports {
            let expected =
                configuration.sweepSeeds.map { Sweep.seeds(count: $0, shard: report.shard!.index, of: count).count }
                ?? (report.shard!.index == 0 ? 1 : 0)
            guard report.seeds == expected else {
                throw SweepMergeError(
                    .wrongSeedCount,
                    "\(file) ran \(report.seeds) seed(s) but shard \(report.shard!.index)/\(count) of this sweep holds "
                        + "\(expected): it was interrupted or altered")
            }
            merged.seeds += report.seeds
            merged.steps += report.steps
            merged.simulatedSeconds += report.simulatedSeconds
            merged.crashes += report.crashes
            merged.invariantChecks += report.invariantChecks
            if let value = report.interleavings { merged.interleavings = (merged.interleavings ?? 0) + value }
            if let value = report.persistentRefusals {
                merged.persistentRefusals = (merged.persistentRefusals ?? 0) + value
            }
            for (kind, value) in report.faults { merged.faults[kind, default: 0] += value }
            merged.failures += report.failures
        }
        merged.failures.sort { $0.seed < $1.seed }
        return merged
    }

    /// The fields in which two configurations differ, in words.
    private static func differences(_ a: Configuration, _ b: Configuration) -> String {
        func text<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "none" }
        var parts: [String] = []
        if a.sweepSeeds != b.sweepSeeds { parts.append("--seeds \(text(a.sweepSeeds)) vs \(text(b.sweepSeeds))") }
        if a.seed != b.seed { parts.append("--seed \(text(a.seed)) vs \(text(b.seed))") }
        if a.steps != b.steps { parts.append("--steps \(a.steps) vs \(b.steps)") }
        if a.devices != b.devices {
            parts.append(
                "--devices \(a.devices.map(String.init) ?? "drawn") vs \(b.devices.map(String.init) ?? "drawn")")
        }
        if a.backend != b.backend { parts.append("--backend \(a.backend) vs \(b.backend)") }
        if a.plant != b.plant { parts.append("--plant \(text(a.plant)) vs \(text(b.plant))") }
        return parts.joined(separator: ", ")
    }
}

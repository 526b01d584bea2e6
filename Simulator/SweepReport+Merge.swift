import DeviceStore
import PrivateCloud
import SimulatedWorld

extension SweepReport {
    /// Merges the reports of the shards of one sweep into the sweep's report: the sums, and every failure in seed
    /// order with its replay command.
    ///
    /// The set must be whole: every report names its shard and configuration, all with the same shard count and
    /// configuration, each shard exactly once, each having run its share of the seeds. The reports come from other
    /// machines, so none is trusted: every count must be 0 or more, the simulated seconds finite and 0 or more, every
    /// fault kind, invariant and backend one this simulator has, every failing seed one its shard ran,
    /// and no sum may overflow. Each failure's replay command and invariant name are rebuilt from its seed, its
    /// number and the configuration, never taken from the file.
    ///
    /// - Parameter reports: Each file's name (for messages) and report, in any order.
    /// - Returns: The merged report (``shards`` set, ``shard`` `nil`).
    /// - Throws: ``SweepMergeError`` naming the first problem and the files concerned (and, for a value no run
    ///   writes, the key that holds it).
    public static func merge(_ reports: [(file: String, report: SweepReport)]) throws(SweepMergeError) -> SweepReport {
        guard !reports.isEmpty else { throw SweepMergeError(.missingShard, "no shard reports to merge") }
        var shards: [(file: String, shard: Shard, configuration: Configuration)] = []
        for (file, report) in reports {
            guard let shard = report.shard, let configuration = report.configuration else {
                throw SweepMergeError(.notAShardReport, "\(file) names no shard and configuration")
            }
            try report.check(file: file, shard: shard, configuration: configuration)
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
        for ((file, report), entry) in zip(reports, shards) {
            let index = entry.shard.index
            let expected =
                configuration.sweepSeeds.map { Sweep.seedCount(count: $0, shard: index, of: count) }
                ?? (index == 0 ? 1 : 0)
            guard report.seeds == expected else {
                throw SweepMergeError(
                    .wrongSeedCount,
                    "\(file) ran \(report.seeds) seed(s) but shard \(index)/\(count) of this sweep holds "
                        + "\(expected): it was interrupted or altered")
            }
            // Each sum is checked, so that counts a file forged to add up past `Int.max` are refused, not a trap.
            func add(_ total: Int, _ value: Int, _ key: String) throws(SweepMergeError) -> Int {
                let (sum, overflow) = total.addingReportingOverflow(value)
                guard !overflow else {
                    throw SweepMergeError(
                        .sumOverflow,
                        "\(file): \(key) is \(value), which brings the shards' sum past the largest count, \(Int.max)")
                }
                return sum
            }
            merged.seeds = try add(merged.seeds, report.seeds, "seeds")
            merged.steps = try add(merged.steps, report.steps, "steps")
            merged.crashes = try add(merged.crashes, report.crashes, "crashes")
            merged.invariantChecks = try add(merged.invariantChecks, report.invariantChecks, "invariantChecks")
            if let value = report.interleavings {
                merged.interleavings = try add(merged.interleavings ?? 0, value, "interleavings")
            }
            if let value = report.persistentRefusals {
                merged.persistentRefusals = try add(merged.persistentRefusals ?? 0, value, "persistentRefusals")
            }
            // In name order, so that the refusal of a set names the same kind every time.
            for (kind, value) in report.faults.sorted(by: { $0.key < $1.key }) {
                merged.faults[kind] = try add(merged.faults[kind] ?? 0, value, "faults.\(kind)")
            }
            // Coverage is merged only when every shard counted it: a sum over some shards would understate it.
            if let coverage = report.coverage, merged.coverage != nil || merged.seeds == report.seeds {
                var sum = merged.coverage ?? [:]
                for (path, value) in coverage.sorted(by: { $0.key < $1.key }) {
                    sum[path] = try add(sum[path] ?? 0, value, "coverage.\(path)")
                }
                merged.coverage = sum
            } else {
                merged.coverage = nil
            }
            let seconds = merged.simulatedSeconds + report.simulatedSeconds
            guard seconds.isFinite else {
                throw SweepMergeError(
                    .sumOverflow,
                    "\(file): simulatedSeconds is \(report.simulatedSeconds), which brings the shards' sum past the "
                        + "largest finite number")
            }
            merged.simulatedSeconds = seconds
            for var failure in report.failures {
                // `check` made sure the number names a kind.
                let kind = SimulationFailure.Kind(number: failure.invariant) ?? .couldNotRun
                failure.invariantName = kind.description
                failure.replay = configuration.replay(seed: failure.seed)
                merged.failures.append(failure)
            }
        }
        merged.failures.sort { $0.seed < $1.seed }
        return merged
    }

    /// Checks that every value of a shard's report is one a run of this simulator writes, naming the file and the
    /// key of the first that is not: what the file says is printed and summed, and a forged value must be refused
    /// with exit 65, never trap, print a command the simulator did not build, or pass for a finding.
    ///
    /// - Parameters:
    ///   - file: The file's name, as messages show it.
    ///   - shard: The report's shard.
    ///   - configuration: The report's configuration.
    /// - Throws: ``SweepMergeError`` `invalidValue` for the first value no run writes.
    private func check(file: String, shard: Shard, configuration: Configuration) throws(SweepMergeError) {
        func refuse(_ problem: String) -> SweepMergeError {
            SweepMergeError(.invalidValue, "\(file): \(problem)")
        }
        let counts: [(String, Int?)] = [
            ("seeds", seeds), ("steps", steps), ("crashes", crashes), ("invariantChecks", invariantChecks),
            ("interleavings", interleavings), ("persistentRefusals", persistentRefusals), ("shards", shards),
        ]
        for case (let key, let value?) in counts where value < 0 {
            throw refuse("\(key) is \(value), but a count is a whole number, 0 or more")
        }
        guard simulatedSeconds.isFinite, simulatedSeconds >= 0 else {
            throw refuse("simulatedSeconds is \(simulatedSeconds), but it is a finite number of seconds, 0 or more")
        }
        let paths = Set(SimulationPath.all.map(\.name))
        for (path, value) in (coverage ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard paths.contains(path) else {
                throw refuse("coverage has the key \(Self.shown(path)), which is no path the simulator counts")
            }
            guard (0...seeds).contains(value) else {
                throw refuse("coverage.\(path) is \(value), but it counts seeds of the \(seeds) the shard ran")
            }
        }
        for (kind, value) in faults.sorted(by: { $0.key < $1.key }) {
            guard FaultKind(rawValue: kind) != nil else {
                throw refuse(
                    "faults has the key \(Self.shown(kind)), which is no fault kind the simulator injects "
                        + "(\(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard value >= 0 else {
                throw refuse("faults.\(kind) is \(value), but a count is a whole number, 0 or more")
            }
        }
        guard Shard.counts.contains(shard.count) else {
            throw refuse(
                "shard.count is \(shard.count), but a sweep has \(Shard.counts.lowerBound) to "
                    + "\(Shard.counts.upperBound) shards")
        }
        guard (0..<shard.count).contains(shard.index) else {
            throw refuse(
                "shard.index is \(shard.index), but shard.count is \(shard.count): it is 0 to \(shard.count - 1)")
        }
        try Self.check(configuration, refuse)
        var failing: Set<UInt64> = []
        for (position, failure) in failures.enumerated() {
            let place = "failures[\(position)]"
            guard SimulationFailure.Kind(number: failure.invariant) != nil else {
                throw refuse(
                    "\(place).invariant is \(failure.invariant), but the simulator's invariants are 1 to "
                        + "\(Invariant.allCases.count), or 0 for a run that could not go on")
            }
            guard failure.step >= 0 else {
                throw refuse("\(place).step is \(failure.step), but a step is a whole number, 0 or more")
            }
            // The seed is what the replay command is rebuilt from, so it must be one this shard ran.
            let ran =
                if let sweepSeeds = configuration.sweepSeeds {
                    failure.seed < UInt64(sweepSeeds) && failure.seed % UInt64(shard.count) == UInt64(shard.index)
                } else {
                    failure.seed == configuration.seed && shard.index == 0
                }
            guard ran else {
                throw refuse(
                    "\(place).seed is \(failure.seed), which shard \(shard.index)/\(shard.count) of this run does not run"
                )
            }
            guard failing.insert(failure.seed).inserted else {
                throw refuse("\(place).seed is \(failure.seed), which an earlier failure of the file already names")
            }
        }
    }

    /// Checks that a configuration is one `simulate` runs: one seed or a sweep of a size it takes, steps and devices
    /// in the ranges it takes, a backend it has (the replay command is built from them).
    private static func check(
        _ configuration: Configuration, _ refuse: (String) -> SweepMergeError
    ) throws(SweepMergeError) {
        switch (configuration.sweepSeeds, configuration.seed) {
        case (let count?, nil):
            guard Configuration.sweepSeedCounts.contains(count) else {
                throw refuse(
                    "configuration.sweepSeeds is \(count), but a sweep runs \(Configuration.sweepSeedCounts.lowerBound) "
                        + "to \(Configuration.sweepSeedCounts.upperBound) seeds")
            }
        case (nil, _?):
            break
        default:
            throw refuse("configuration names both sweepSeeds and seed, or neither: a run is a sweep or one seed")
        }
        guard Configuration.stepCounts.contains(configuration.steps) else {
            throw refuse(
                "configuration.steps is \(configuration.steps), but a run takes \(Configuration.stepCounts.lowerBound) "
                    + "to \(Configuration.stepCounts.upperBound) steps")
        }
        if let devices = configuration.devices, !Configuration.deviceCounts.contains(devices) {
            throw refuse(
                "configuration.devices is \(devices), but a run has \(Configuration.deviceCounts.lowerBound) to "
                    + "\(Configuration.deviceCounts.upperBound) devices")
        }
        guard ContainerBackend(rawValue: configuration.backend) != nil else {
            throw refuse(
                "configuration.backend is \(shown(configuration.backend)), which is no backend the simulator has "
                    + "(\(ContainerBackend.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard AppSyncEngine(rawValue: configuration.build) != nil else {
            throw refuse(
                "configuration.build is \(shown(configuration.build)), which is no build the simulator has "
                    + "(\(AppSyncEngine.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    /// A name from a file, as a refusal shows it: quoted, escaped, and cut to its first 40 characters, since the
    /// file may hold any text at any length.
    private static func shown(_ name: String) -> String {
        name.count > 40 ? String(name.prefix(40)).debugDescription + "..." : name.debugDescription
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
        if a.build != b.build { parts.append("--build \(a.build) vs \(b.build)") }
        return parts.joined(separator: ", ")
    }
}

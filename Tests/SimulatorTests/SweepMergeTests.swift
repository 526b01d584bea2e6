import Foundation
import Testing

@testable import Simulator

@Suite("Sweep merge")
struct SweepMergeTests {
    static let configuration = SweepReport.Configuration(
        sweepSeeds: 10, seed: nil, steps: 50, devices: nil, backend: "memory")

    /// A shard's report of the 10-seed sweep split in `count`, with one failure per seed listed.
    static func shard(
        _ index: Int, of count: Int, failing: [UInt64] = [],
        configuration: SweepReport.Configuration = configuration, seeds: Int? = nil
    ) -> (file: String, report: SweepReport) {
        let share = Sweep.seeds(count: 10, shard: index, of: count).count
        let failures = failing.map {
            SweepReport.Failure(
                seed: $0, invariant: 5, invariantName: "5 (honest status)", message: "m", step: 3, lastSteps: [],
                replay: "privatesync simulate --seed \($0) --steps 50 --trace")
        }
        return (
            "shard-\(index).json",
            SweepReport(
                seeds: seeds ?? share, steps: 10 * share, simulatedSeconds: 100, faults: ["zone-busy": index + 1],
                crashes: 1, invariantChecks: 7, failures: failures,
                shard: SweepReport.Shard(index: index, count: count), configuration: configuration)
        )
    }

    @Test("merging every shard of a sweep sums them and lists the failures in seed order")
    func mergesWholeSets() throws {
        let merged = try SweepReport.merge([
            Self.shard(2, of: 3, failing: [8]), Self.shard(0, of: 3, failing: [3]), Self.shard(1, of: 3),
        ])
        #expect(merged.seeds == 10)
        #expect(merged.steps == 100)
        #expect(merged.simulatedSeconds == 300)
        #expect(merged.crashes == 3)
        #expect(merged.invariantChecks == 21)
        #expect(merged.faults == ["zone-busy": 6])
        #expect(merged.failures.map(\.seed) == [3, 8])
        #expect(merged.failures.map(\.replay).first == "privatesync simulate --seed 3 --steps 50 --trace")
        #expect(merged.shards == 3)
        #expect(merged.shard == nil)
        #expect(merged.configuration == Self.configuration)
    }

    @Test("coverage sums over the shards, and is left out when any shard did not count it")
    func mergesCoverage() throws {
        var first = Self.shard(0, of: 2)
        var second = Self.shard(1, of: 2)
        first.report.coverage = ["split send": 5, "multi-page fetch": 0]
        second.report.coverage = ["split send": 1, "multi-page fetch": 2]
        let merged = try SweepReport.merge([first, second])
        #expect(merged.coverage == ["split send": 6, "multi-page fetch": 2])
        #expect(merged.rarePaths.map(\.path) == [], "2 and 6 of 10 seeds are at least 5%")
        second.report.coverage = nil
        #expect(try SweepReport.merge([first, second]).coverage == nil)
        #expect(try SweepReport.merge([second, first]).coverage == nil)
    }

    @Test("a path reached by fewer than 5% of the seeds is listed as rare, rarest first")
    func listsRarePaths() {
        var report = Self.shard(0, of: 1).report
        report.seeds = 100
        report.coverage = ["split send": 70, "crash afterFetch": 4, "fault zone-busy at saveZones": 0]
        #expect(report.rarePaths.map(\.path) == ["fault zone-busy at saveZones", "crash afterFetch"])
    }

    @Test("every path the simulator counts has a distinct name")
    func pathNamesAreDistinct() {
        #expect(Set(SimulationPath.all.map(\.name)).count == SimulationPath.all.count)
    }

    @Test("a shard missing, repeated, of another count or configuration, or short of seeds is refused")
    func refusesBadSets() {
        func code(_ reports: [(file: String, report: SweepReport)]) -> SweepMergeError.Code? {
            do {
                _ = try SweepReport.merge(reports)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code([Self.shard(0, of: 3), Self.shard(2, of: 3)]) == .missingShard)
        #expect(code([]) == .missingShard)
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2), Self.shard(1, of: 2)]) == .repeatedShard)
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 3)]) == .differentShardCounts)
        var other = Self.configuration
        other.steps = 51
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)]) == .differentConfigurations)
        other = Self.configuration
        other.backend = "file"
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)]) == .differentConfigurations)
        other = Self.configuration
        other.devices = 2
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)]) == .differentConfigurations)
        other = Self.configuration
        other.sweepSeeds = 11
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)]) == .differentConfigurations)
        other = Self.configuration
        other.build = "cksyncengine"
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)]) == .differentConfigurations)
        #expect(code([Self.shard(0, of: 2), Self.shard(1, of: 2, seeds: 4)]) == .wrongSeedCount)
        var legacy = Self.shard(1, of: 2)
        legacy.report.shard = nil
        #expect(code([Self.shard(0, of: 2), legacy]) == .notAShardReport)
    }

    @Test("the refusal names the files and what differs")
    func refusalNamesTheFiles() {
        var other = Self.configuration
        other.steps = 51
        let error = #expect(throws: SweepMergeError.self) {
            try SweepReport.merge([Self.shard(0, of: 2), Self.shard(1, of: 2, configuration: other)])
        }
        #expect(error?.message.contains("shard-0.json and shard-1.json") == true)
        #expect(error?.message.contains("--steps 50 vs 51") == true)
    }
}

/// Shard reports come from other machines: what a merge refuses in them, and what it never takes from them.
@Suite("Sweep merge: untrusted shard reports")
struct SweepMergeHostileTests {
    /// A report of shard 1/2 of the 10-seed sweep, altered one way, and what its merge with shard 0/2 must say.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let code: SweepMergeError.Code
        /// Words the refusal must hold, besides the file's name.
        let message: String
        let edit: @Sendable (inout SweepReport) -> Void

        init(
            _ description: String, _ code: SweepMergeError.Code, _ message: String,
            _ edit: @escaping @Sendable (inout SweepReport) -> Void
        ) {
            self.testDescription = description
            self.code = code
            self.message = message
            self.edit = edit
        }
    }

    /// A failure of `seed`, invariant `invariant`, with a replay command and a name of the file's own.
    static func failure(_ seed: UInt64, invariant: Int = 5, step: Int = 3) -> SweepReport.Failure {
        SweepReport.Failure(
            seed: seed, invariant: invariant, invariantName: "5 (rm -rf ~)", message: "m", step: step, lastSteps: [],
            replay: "rm -rf ~; privatesync simulate --seed \(seed)")
    }

    static let cases: [Case] = [
        Case("a negative seed count", .invalidValue, "seeds is -5") { $0.seeds = -5 },
        Case("negative steps", .invalidValue, "steps is -2000") { $0.steps = -2000 },
        Case("negative crashes", .invalidValue, "crashes is -1") { $0.crashes = -1 },
        Case("negative checks", .invalidValue, "invariantChecks is -1") { $0.invariantChecks = -1 },
        Case("negative interleavings", .invalidValue, "interleavings is -1") { $0.interleavings = -1 },
        Case("negative refusals", .invalidValue, "persistentRefusals is -1") { $0.persistentRefusals = -1 },
        Case("a negative fault count", .invalidValue, "faults.zone-busy is -3") { $0.faults["zone-busy"] = -3 },
        Case("an unknown fault kind", .invalidValue, #"faults has the key "\u{1B}[31mred""#) {
            $0.faults["\u{1B}[31mred"] = 1
        },
        Case("a fault kind too long to show", .invalidValue, #"faults has the key "kkkkkkkkkk"#) {
            $0.faults[String(repeating: "k", count: 10_000)] = 1
        },
        Case("negative simulated seconds", .invalidValue, "simulatedSeconds is -1.0") { $0.simulatedSeconds = -1 },
        Case("infinite simulated seconds", .invalidValue, "simulatedSeconds is inf") {
            $0.simulatedSeconds = .infinity
        },
        Case("simulated seconds not a number", .invalidValue, "simulatedSeconds is nan") {
            $0.simulatedSeconds = .nan
        },
        Case("steps summing past Int.max", .sumOverflow, "steps is 9223372036854775807") { $0.steps = .max },
        Case("checks summing past Int.max", .sumOverflow, "invariantChecks is 9223372036854775807") {
            $0.invariantChecks = .max
        },
        Case("faults summing past Int.max", .sumOverflow, "faults.zone-busy is 9223372036854775807") {
            $0.faults["zone-busy"] = .max
        },
        Case("simulated seconds summing past the largest double", .sumOverflow, "simulatedSeconds is 1.7976931") {
            $0.simulatedSeconds = .greatestFiniteMagnitude
        },
        Case("invariant 999", .invalidValue, "failures[0].invariant is 999") {
            $0.failures = [failure(1, invariant: 999)]
        },
        Case("a negative invariant", .invalidValue, "failures[0].invariant is -1") {
            $0.failures = [failure(1, invariant: -1)]
        },
        Case("a negative step", .invalidValue, "failures[0].step is -1") { $0.failures = [failure(1, step: -1)] },
        Case("a failing seed of the other shard", .invalidValue, "failures[0].seed is 2") {
            $0.failures = [failure(2)]
        },
        Case("a failing seed outside the sweep", .invalidValue, "failures[0].seed is 11") {
            $0.failures = [failure(11)]
        },
        Case("a failing seed past Int.max", .invalidValue, "failures[0].seed is 18446744073709551615") {
            $0.failures = [failure(.max)]
        },
        Case("a failing seed twice", .invalidValue, "failures[1].seed is 3") {
            $0.failures = [failure(3), failure(3)]
        },
        Case("a negative shard count", .invalidValue, "shard.count is -1") { $0.shard?.count = -1 },
        Case("a shard count past the limit", .invalidValue, "shard.count is 1000001") { $0.shard?.count = 1_000_001 },
        Case("a shard index past its count", .invalidValue, "shard.index is 2") { $0.shard?.index = 2 },
        Case("a negative shard index", .invalidValue, "shard.index is -1") { $0.shard?.index = -1 },
        Case("an unknown backend", .invalidValue, #"configuration.backend is "cloud; rm -rf ~""#) {
            $0.configuration?.backend = "cloud; rm -rf ~"
        },
        Case("negative configured steps", .invalidValue, "configuration.steps is -1") {
            $0.configuration?.steps = -1
        },
        Case("an unknown build", .invalidValue, #"configuration.build is "beta""#) {
            $0.configuration?.build = "beta"
        },
        Case("configured devices out of range", .invalidValue, "configuration.devices is 9") {
            $0.configuration?.devices = 9
        },
        Case("a sweep of more seeds than simulate runs", .invalidValue, "configuration.sweepSeeds is 100000001") {
            $0.configuration?.sweepSeeds = 100_000_001
        },
        Case("both a sweep and one seed", .invalidValue, "configuration names both sweepSeeds and seed") {
            $0.configuration?.seed = 4
        },
        Case("a path the simulator does not count", .invalidValue, #"coverage has the key "fault teleport""#) {
            $0.coverage = ["fault teleport": 1]
        },
        Case("more seeds reaching a path than the shard ran", .invalidValue, "coverage.split send is 6") {
            $0.coverage = ["split send": 6]
        },
        Case("a negative path count", .invalidValue, "coverage.split send is -1") { $0.coverage = ["split send": -1] },
    ]

    @Test("a value no run writes is refused, naming the file and the key", arguments: cases)
    func refusesHostileValues(_ testCase: Case) {
        var hostile = SweepMergeTests.shard(1, of: 2)
        hostile.file = "hostile.json"
        testCase.edit(&hostile.report)
        var first = SweepMergeTests.shard(0, of: 2)
        if testCase.code == .sumOverflow { testCase.edit(&first.report) }
        let error = #expect(throws: SweepMergeError.self) { try SweepReport.merge([first, hostile]) }
        #expect(error?.code == testCase.code, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.message.hasPrefix("hostile.json: ") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(testCase.message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\u{1B}") == false, "a raw escape reached the message")
        #expect((error?.message.count ?? 0) < 600, "the message repeats a long name whole")
    }

    @Test("a failure's replay command and invariant name are rebuilt from its seed and the configuration")
    func replayIsRebuilt() throws {
        var first = SweepMergeTests.shard(0, of: 2)
        first.report.failures = [Self.failure(4, invariant: 0)]
        var second = SweepMergeTests.shard(1, of: 2)
        second.report.failures = [Self.failure(3)]
        second.report.configuration?.backend = "file"
        first.report.configuration?.backend = "file"
        let merged = try SweepReport.merge([first, second])
        #expect(
            merged.failures.map(\.replay) == [
                "privatesync simulate --seed 3 --steps 50 --backend file --trace",
                "privatesync simulate --seed 4 --steps 50 --backend file --trace",
            ])
        #expect(
            merged.failures.map(\.invariantName) == [
                "5 (honest status)", "0 (the run could not go on: a setup or I/O failure)",
            ])
        #expect(merged.failures.allSatisfy { !$0.replay.contains("rm") && !$0.invariantName.contains("rm") })
    }

    @Test("the replay command names every option that differs from its default, and only those")
    func replayCommand() {
        let plain = SweepReport.Configuration(sweepSeeds: 10, seed: nil, steps: 200, devices: nil, backend: "memory")
        #expect(plain.replay(seed: 7) == "privatesync simulate --seed 7 --trace")
        let every = SweepReport.Configuration(
            sweepSeeds: nil, seed: 7, steps: 20, devices: 3, backend: "file", build: "cksyncengine")
        #expect(
            every.replay(seed: 7)
                == "privatesync simulate --seed 7 --devices 3 --steps 20 --backend file --build cksyncengine --trace")
    }

    @Test("the shares of a sweep are counted without listing its seeds, as Sweep.seeds lists them")
    func seedCounts() {
        for count in 0...12 {
            for shards in 1...5 {
                for index in 0..<shards {
                    #expect(
                        Sweep.seedCount(count: count, shard: index, of: shards)
                            == Sweep.seeds(count: count, shard: index, of: shards).count,
                        "\(index)/\(shards) of \(count)")
                }
            }
        }
        #expect(Sweep.seedCount(count: 100_000_000, shard: 0, of: 1) == 100_000_000)
    }

    /// A report as `simulate --json` writes it, with a failure whose seed only a `UInt64` holds.
    static var reportJSON: String {
        #"{"configuration":{"backend":"memory","devices":null,"seed":18446744073709551615,"steps":5,"sweepSeeds":null},"crashes":1,"failures":[{"invariant":5,"invariantName":"5 (honest status)","lastSteps":["a","b"],"message":"m","replay":"r","seed":18446744073709551615,"step":3}],"faults":{"zone-busy":2},"interleavings":4,"invariantChecks":7,"persistentRefusals":0,"seeds":1,"shard":{"count":1,"index":0},"simulatedSeconds":12.5,"steps":9}"#
    }

    @Test("a report reads back as simulate --json wrote it")
    func readsWhatIsWritten() throws {
        let report = try SweepReport(json: Array(Self.reportJSON.utf8), file: "r.json")
        #expect(report.seeds == 1)
        #expect(report.steps == 9)
        #expect(report.simulatedSeconds == 12.5)
        #expect(report.faults == ["zone-busy": 2])
        #expect(report.interleavings == 4)
        #expect(report.persistentRefusals == 0)
        #expect(report.failures.first?.seed == .max)
        #expect(report.failures.first?.lastSteps == ["a", "b"])
        #expect(report.shard == SweepReport.Shard(index: 0, count: 1))
        #expect(
            report.configuration
                == SweepReport.Configuration(sweepSeeds: nil, seed: .max, steps: 5, devices: nil, backend: "memory"))
        let legacy = try SweepReport(
            json: Array(
                #"{"seeds":1,"steps":2,"simulatedSeconds":3,"faults":{},"crashes":0,"invariantChecks":4,"failures":[]}"#
                    .utf8),
            file: "old.json")
        #expect(legacy.shard == nil && legacy.configuration == nil && legacy.interleavings == nil)
    }

    @Test("a sweep of the delegate's build writes its build, and reads back as it; the app's build writes none")
    func buildRoundTrips() throws {
        var configuration = SweepReport.Configuration(
            sweepSeeds: 10, seed: nil, steps: 50, devices: nil, backend: "memory", build: "cksyncengine")
        var report = try SweepReport(json: Array(Self.reportJSON.utf8), file: "r.json")
        report.configuration = configuration
        let written = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(written.contains(#""build":"cksyncengine""#))
        #expect(try SweepReport(json: Array(written.utf8), file: "w.json").configuration == configuration)
        configuration.build = "app"
        report.configuration = configuration
        let plain = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!plain.contains("build"), "the JSON a sweep of the app's build always wrote")
        #expect(try SweepReport(json: Array(plain.utf8), file: "p.json").configuration == configuration)
    }

    /// Alterations of ``reportJSON`` that no writer makes, and the reader's words for each.
    static let malformed: [(String, String, String)] = [
        (#""steps":9"#, #""steps":9,"steps":1"#, #"the top level has the key "steps" twice"#),
        (#""zone-busy":2"#, #""zone-busy":2,"zone-busy":1"#, #"faults has the key "zone-busy" twice"#),
        (#""count":1,"index":0"#, #""count":1,"index":0,"index":0"#, #"shard has the key "index" twice"#),
        (#""steps":5,"#, #""steps":5,"steps":5,"#, #"configuration has the key "steps" twice"#),
        (#""step":3"#, #""step":3,"seed":1"#, #"failures[0] has the key "seed" twice"#),
        (#""steps":9"#, #""steps":9,"stepz":1"#, #"the top level has an unknown key "stepz""#),
        (#""steps":9"#, #""steps":9.5"#, "steps should be a whole number"),
        (#""steps":9"#, #""steps":"9""#, "steps should be a whole number"),
        (#""steps":9"#, #""steps":99999999999999999999"#, "steps should be a whole number"),
        (#""seed":18446744073709551615,"step""#, #""seed":18446744073709551616,"step""#, "failures[0].seed should be"),
        (#""seed":18446744073709551615,"step""#, #""seed":-1,"step""#, "failures[0].seed should be"),
        (#""simulatedSeconds":12.5"#, #""simulatedSeconds":null"#, "simulatedSeconds should be a number"),
        (#""seeds":1,"#, "", #"the top level is missing the key "seeds""#),
    ]

    @Test("a key given twice or unknown, or a value of the wrong type, is refused where it is", arguments: malformed)
    func refusesMalformedJSON(_ find: String, _ replacement: String, _ message: String) throws {
        #expect(Self.reportJSON.contains(find))
        let json = Self.reportJSON.replacingOccurrences(of: find, with: replacement)
        let error = #expect(throws: SweepMergeError.self) { try SweepReport(json: Array(json.utf8), file: "bad.json") }
        #expect(error?.code == .notAShardReport)
        #expect(error?.description.contains(message) == true, "\(error.map { "\($0)" } ?? "")")
    }
}

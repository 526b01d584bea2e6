import Simulator
import Testing

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

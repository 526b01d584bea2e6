import Foundation
import Testing

/// `simulate --shard ... --json` records its shard and configuration; `simulate merge` puts shards back together,
/// and `--shard env` reads the shard from a CI matrix's or an Indexed Job's environment.
@Suite("CLI: simulate shards and merge")
struct CLISimulateMergeTests {
    static func write(_ text: String, _ folder: URL, _ name: String) -> String {
        let path = folder.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test("the shards of a sweep merge into the same sums as the whole sweep run at once")
    func shardsMergeIntoTheWholeSweep() throws {
        let cli = CLIRunner.fresh()
        let folder = URL(fileURLWithPath: cli.home).deletingLastPathComponent()
        let whole = try cli.run(["simulate", "--seeds", "6", "--steps", "15", "--json"], home: false).json
        var files: [String] = []
        for index in [2, 0, 1] {
            let run = try cli.run(
                ["simulate", "--seeds", "6", "--steps", "15", "--shard", "\(index)/3", "--json"], home: false)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.json["shard"] as? [String: Int] == ["index": index, "count": 3])
            files.append(Self.write(run.standardOutput, folder, "shard-\(index).json"))
        }
        let merged = try cli.run(["simulate", "merge"] + files + ["--json"], home: false)
        #expect(merged.status == 0, "\(merged.standardError)")
        for key in ["seeds", "steps", "crashes", "invariantChecks"] {
            #expect(merged.json[key] as? Int == whole[key] as? Int, "\(key)")
        }
        #expect(merged.json["faults"] as? [String: Int] == whole["faults"] as? [String: Int])
        #expect(merged.json["shards"] as? Int == 3)
        let configuration = try #require(merged.json["configuration"] as? [String: Any])
        #expect(configuration["sweepSeeds"] as? Int == 6)
        #expect(configuration["steps"] as? Int == 15)
        #expect(configuration["backend"] as? String == "memory")
        let text = try cli.run(["simulate", "merge"] + files, home: false)
        #expect(text.standardOutput.contains("Merged 3 shard(s): 6 seed(s)"))
    }

    @Test("a missing, repeated or foreign shard is refused (65) naming what is wrong")
    func badShardSetsAreRefused() throws {
        let cli = CLIRunner.fresh()
        let folder = URL(fileURLWithPath: cli.home).deletingLastPathComponent()
        func shard(_ spec: String, steps: String = "5", seeds: String = "4") throws -> String {
            let run = try cli.run(
                ["simulate", "--seeds", seeds, "--steps", steps, "--shard", spec, "--json"], home: false)
            return Self.write(
                run.standardOutput, folder, "s-\(spec.replacingOccurrences(of: "/", with: "of"))-\(steps)-\(seeds).json"
            )
        }
        let zero = try shard("0/2")
        let one = try shard("1/2")
        let otherSteps = try shard("1/2", steps: "6")
        let otherSeeds = try shard("1/2", seeds: "5")
        let otherCount = try shard("1/3")
        let cases: [([String], String)] = [
            ([zero], "1 of 2 shard(s) missing: 1/2"),
            ([zero, one, one], "given twice"),
            ([zero, otherSteps], "--steps 5 vs 6"),
            ([zero, otherSeeds], "--seeds 4 vs 5"),
            ([zero, otherCount], "share their count"),
        ]
        for (files, message) in cases {
            let run = try cli.run(["simulate", "merge"] + files, home: false)
            #expect(run.status == 65, "\(files): \(run.standardError)")
            #expect(run.standardError.contains(message), "\(run.standardError)")
            #expect(run.standardOutput.isEmpty)
        }
    }

    @Test("--shard env reads the shard from a CI matrix's variables or a Kubernetes Indexed Job's index")
    func shardFromTheEnvironment() throws {
        let cli = CLIRunner.fresh()
        let arguments = ["simulate", "--seeds", "5", "--steps", "5", "--shard", "env", "--json"]
        let matrix = try cli.run(
            arguments, home: false,
            environment: ["PRIVATESYNC_SHARD_INDEX": "1", "PRIVATESYNC_SHARD_COUNT": "2", "JOB_COMPLETION_INDEX": "0"])
        #expect(matrix.json["shard"] as? [String: Int] == ["index": 1, "count": 2])
        #expect(matrix.json["seeds"] as? Int == 2)
        let job = try cli.run(
            arguments, home: false, environment: ["JOB_COMPLETION_INDEX": "2", "PRIVATESYNC_SHARD_COUNT": "3"])
        #expect(job.json["shard"] as? [String: Int] == ["index": 2, "count": 3])
        let noCount = try cli.run(arguments, home: false, environment: ["JOB_COMPLETION_INDEX": "2"])
        #expect(noCount.status == 65)
        #expect(noCount.standardError.contains("PRIVATESYNC_SHARD_COUNT"))
        let outOfRange = try cli.run(
            arguments, home: false, environment: ["JOB_COMPLETION_INDEX": "3", "PRIVATESYNC_SHARD_COUNT": "3"])
        #expect(outOfRange.status == 65)
        #expect(outOfRange.standardError.contains("from 0 to 2"))
    }
}

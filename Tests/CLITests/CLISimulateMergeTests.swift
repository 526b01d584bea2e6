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

    /// A folder holding the two shards of `simulate --seeds 4 --steps 5 --shard I/2 --json`, run once for every
    /// test of hostile files (each alters a copy of shard 1).
    static let genuine: (folder: URL, first: String, second: String) = {
        let cli = CLIRunner.fresh()
        let folder = URL(fileURLWithPath: cli.home).deletingLastPathComponent()
        let texts = (0..<2).map { index in
            (try? cli.run(["simulate", "--seeds", "4", "--steps", "5", "--shard", "\(index)/2", "--json"], home: false))?
                .standardOutput ?? ""
        }
        return (folder, CLISimulateMergeTests.write(texts[0], folder, "shard-0.json"), texts[1])
    }()

    /// Shard 1's JSON with one value altered, as text: `key` (a top-level key, or `parent.key`) set to the JSON text
    /// `value`, written raw so that it may be what no encoder writes (a key twice, a number past `Int64`).
    static func altered(_ text: String, _ key: String, _ value: String) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        let path = key.split(separator: ".").map(String.init)
        let marker = "@@altered@@"
        if path.count == 2, var inner = object[path[0]] as? [String: Any] {
            inner[path[1]] = marker
            object[path[0]] = inner
        } else {
            object[key] = marker
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"\(marker)\"", with: value)
    }

    /// A hostile shard 1: the key altered, its JSON value, and the words the refusal must hold besides the file's
    /// name.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let key: String
        let value: String
        let message: String
        /// Whether shard 0 is altered the same way (for sums that overflow only together).
        var both = false
        var testDescription: String { "\(key): \(value.prefix(60))" }
    }

    static let hostile: [Hostile] = [
        Hostile(key: "steps", value: "-2000", message: "steps is -2000, but a count is a whole number, 0 or more"),
        Hostile(key: "crashes", value: "-1", message: "crashes is -1"),
        Hostile(key: "interleavings", value: "-7", message: "interleavings is -7"),
        Hostile(key: "steps", value: "9223372036854775807", message: "past the largest count, 9223372036854775807"),
        Hostile(
            key: "invariantChecks", value: "9223372036854775807", message: "invariantChecks is 9223372036854775807"),
        Hostile(key: "steps", value: "9223372036854775808", message: "steps should be a whole number"),
        Hostile(key: "steps", value: "1.5", message: "steps should be a whole number"),
        Hostile(key: "simulatedSeconds", value: "-1", message: "simulatedSeconds is -1.0"),
        Hostile(key: "simulatedSeconds", value: "1e400", message: "simulatedSeconds is inf"),
        Hostile(key: "simulatedSeconds", value: "1e308", message: "largest finite number", both: true),
        Hostile(key: "faults", value: #"{"zone-busy":-4}"#, message: "faults.zone-busy is -4"),
        Hostile(
            key: "faults", value: #"{"\u001b[2Jzone-busy":1}"#, message: #"faults has the key "\u{1B}[2Jzone-busy""#),
        Hostile(
            key: "faults", value: #"{"zone-busy":1,"zone-busy":2}"#, message: #"faults has the key "zone-busy" twice"#),
        Hostile(key: "seeds", value: #"2,"seeds":2"#, message: #"the top level has the key "seeds" twice"#),
        Hostile(key: "shard", value: #"{"count":2,"index":1,"index":1}"#, message: #"shard has the key "index" twice"#),
        Hostile(
            key: "configuration",
            value:
                #"{"backend":"memory","backend":"file","devices":null,"seed":null,"steps":5,"sweepSeeds":4}"#,
            message: #"configuration has the key "backend" twice"#),
        Hostile(key: "extra", value: "1", message: #"the top level has an unknown key "extra""#),
        Hostile(
            key: "failures",
            value:
                #"[{"invariant":999,"invariantName":"x","lastSteps":[],"message":"m","replay":"r","seed":1,"step":1}]"#,
            message: "failures[0].invariant is 999"),
        Hostile(
            key: "failures",
            value:
                #"[{"invariant":5,"invariantName":"x","lastSteps":[],"message":"m","replay":"r","seed":2,"step":1}]"#,
            message: "failures[0].seed is 2, which shard 1/2 of this run does not run"),
        Hostile(
            key: "failures",
            value:
                #"[{"invariant":5,"invariant":5,"invariantName":"x","lastSteps":[],"message":"m","replay":"r","seed":1,"step":1}]"#,
            message: #"failures[0] has the key "invariant" twice"#),
        Hostile(key: "shard.count", value: "-1", message: "shard.count is -1"),
        Hostile(key: "shard.index", value: "7", message: "shard.index is 7"),
        Hostile(
            key: "configuration.backend", value: #""memory\u001b]0;pwned\u0007""#, message: "configuration.backend is"),
        Hostile(key: "configuration.steps", value: "-5", message: "configuration.steps is -5"),
    ]

    @Test("a shard file holding what no run writes is refused (65), naming the file and the key", arguments: hostile)
    func hostileShardIsRefused(_ hostile: Hostile) throws {
        let genuine = Self.genuine
        let name = "hostile-\(UUID().uuidString).json"
        let file = Self.write(Self.altered(genuine.second, hostile.key, hostile.value), genuine.folder, name)
        var first = genuine.first
        if hostile.both {
            let text = try String(contentsOfFile: first, encoding: .utf8)
            first = Self.write(Self.altered(text, hostile.key, hostile.value), genuine.folder, "first-" + name)
        }
        let run = try CLIRunner.fresh().run(["simulate", "merge", first, file], home: false)
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.signal == nil, "it trapped")
        #expect(run.standardError.contains(name), "\(run.standardError)")
        #expect(run.standardError.contains(hostile.message), "\(run.standardError)")
        #expect(
            !run.standardError.contains("\u{1B}") && !run.standardError.contains("\u{7}"), "a raw control character")
        #expect(run.standardOutput.isEmpty)
    }

    @Test("huge but finite simulated seconds are summed and printed, not a trap")
    func hugeSecondsPrint() throws {
        let genuine = Self.genuine
        let file = Self.write(Self.altered(genuine.second, "simulatedSeconds", "1e308"), genuine.folder, "huge.json")
        let run = try CLIRunner.fresh().run(["simulate", "merge", genuine.first, file], home: false)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("1e+308 simulated seconds"), "\(run.standardOutput)")
    }

    @Test("a failure's replay command is rebuilt from its seed and the configuration, never the shard's text")
    func replayIsRebuilt() throws {
        let genuine = Self.genuine
        let failure =
            #"[{"invariant":5,"invariantName":"5 (\u001b[2J)","lastSteps":["x"],"message":"found \u001b[31m","#
            + #""replay":"rm -rf ~; privatesync simulate --seed 1","seed":1,"step":3}]"#
        let file = Self.write(Self.altered(genuine.second, "failures", failure), genuine.folder, "failing.json")
        let text = try CLIRunner.fresh().run(["simulate", "merge", genuine.first, file], home: false)
        #expect(text.status == 1, "\(text.standardError)")
        #expect(text.standardOutput.contains("Seed 1 broke invariant 5 (honest status) at step 3:"))
        #expect(text.standardOutput.contains("  replay: privatesync simulate --seed 1 --steps 5 --trace\n"))
        #expect(!text.standardOutput.contains("rm -rf"), "\(text.standardOutput)")
        #expect(!text.standardOutput.contains("\u{1B}"), "a raw escape reached the terminal")
        let json = try CLIRunner.fresh().run(["simulate", "merge", genuine.first, file, "--json"], home: false)
        let failures = try #require(json.json["failures"] as? [[String: Any]])
        #expect(failures.first?["replay"] as? String == "privatesync simulate --seed 1 --steps 5 --trace")
        #expect(failures.first?["invariantName"] as? String == "5 (honest status)")
    }

    @Test("a long file name is cut to its first 200 characters in the refusal")
    func longNameIsCut() throws {
        let genuine = Self.genuine
        // A path of thousands of characters that names a real file: `./` repeated.
        let file = Self.write(Self.altered(genuine.second, "steps", "-1"), genuine.folder, "long.json")
        let long = genuine.folder.path + String(repeating: "/.", count: 1_500) + "/long.json"
        let run = try CLIRunner.fresh().run(["simulate", "merge", genuine.first, long], home: false)
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.standardError.contains(long.prefix(200) + "...: steps is -1"), "\(run.standardError)")
        #expect(run.standardError.count < 500, "\(run.standardError.count) characters")
    }
}

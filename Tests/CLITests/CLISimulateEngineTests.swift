import Foundation
import Testing

/// `simulate --engine cksyncengine`: the demo app as a delegate of the CKSyncEngine-shaped engine, under the
/// delegate sweep, from the command line.
@Suite("CLI: simulate through the CKSyncEngine-shaped engine")
struct CLISimulateEngineTests {
    /// Runs `privatesync simulate --engine cksyncengine` with `arguments`, with no world, and expects it to pass.
    static func simulate(_ arguments: [String]) throws -> CLIRunner.Run {
        let run = try CLIRunner.fresh().run(["simulate", "--engine", "cksyncengine"] + arguments, home: false)
        #expect(run.status == 0, "\(run.standardError)")
        return run
    }

    @Test("a sweep's shards add up to the whole sweep, each naming its shard and engine in JSON")
    func shardsAddUp() throws {
        let arguments = ["--seeds", "6", "--steps", "20", "--json"]
        let whole = try Self.simulate(arguments)
        #expect(whole.json["engine"] as? String == "cksyncengine")
        #expect(whole.json["seeds"] as? Int == 6)
        #expect(whole.json["steps"] as? Int == 120)
        #expect((whole.json["failures"] as? [Any])?.isEmpty == true)
        var seeds = 0
        var steps = 0
        var crashes = 0
        for index in 0..<2 {
            let shard = try Self.simulate(arguments + ["--shard", "\(index)/2"])
            #expect(shard.json["shard"] as? [String: Int] == ["index": index, "count": 2])
            seeds += shard.json["seeds"] as? Int ?? 0
            steps += shard.json["steps"] as? Int ?? 0
            crashes += shard.json["crashes"] as? Int ?? 0
        }
        #expect(seeds == 6)
        #expect(steps == whole.json["steps"] as? Int)
        #expect(crashes == whole.json["crashes"] as? Int)
    }

    @Test("one seed traced prints its timeline and its summary, and replays the same way")
    func oneSeedTraces() throws {
        let arguments = ["--seed", "3", "--steps", "20", "--trace"]
        let first = try Self.simulate(arguments)
        #expect(first.standardOutput.contains("event accountChange"))
        #expect(first.standardOutput.contains("Simulated 1 seed(s) through the CKSyncEngine-shaped engine"))
        let again = try Self.simulate(arguments)
        #expect(again.standardOutput == first.standardOutput)
    }

    @Test(
        "--swarm gives each run its own mix: said in JSON with the crashes inside the app's writes, and in the replay")
    func swarmIsSaid() throws {
        let even = try Self.simulate(["--seeds", "20", "--json"])
        #expect(even.json["stepMix"] as? String == "even")
        #expect(even.json["crashesInsideWrites"] as? Int == 0)
        let swarm = try Self.simulate(["--seeds", "20", "--json", "--swarm"])
        #expect(swarm.json["stepMix"] as? String == "swarm")
        #expect((swarm.json["crashesInsideWrites"] as? Int ?? 0) > 0)
        #expect(swarm.json["steps"] as? Int == even.json["steps"] as? Int)
        let traced = try Self.simulate(["--seed", "3", "--steps", "20", "--trace", "--swarm"])
        #expect(traced.standardOutput.contains("swarm: steps action ×"))
        let refused = try CLIRunner.fresh().run(["simulate", "--seeds", "2", "--swarm"], home: false)
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("give it with --engine cksyncengine"), "\(refused.standardError)")
    }

    @Test("--no-outages runs the swarm as it was before outages (no spell, no busier interleaving), and needs --swarm")
    func noOutagesIsSaid() throws {
        let traced = try Self.simulate(["--seed", "42", "--steps", "20", "--trace", "--swarm", "--no-outages"])
        #expect(traced.standardOutput.contains("outage ×0"))
        #expect(traced.standardOutput.contains("requests interleaved ×1"))
        #expect(!traced.standardOutput.contains("the network goes"))
        let withOutages = try Self.simulate(["--seed", "42", "--steps", "20", "--trace", "--swarm"])
        #expect(withOutages.standardOutput != traced.standardOutput)
        let refused = try CLIRunner.fresh().run(
            ["simulate", "--engine", "cksyncengine", "--seeds", "2", "--no-outages"], home: false)
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("give it with --swarm"), "\(refused.standardError)")
    }

    @Test(
        "what the delegate sweep does not do is refused as a usage error",
        arguments: [
            (["--coverage"], "--coverage counts the app engine's paths"),
            (["--devices", "1"], "runs 2 to 4 devices"),
            (["--engine", "swiftdata"], "not a valid value"),
        ])
    func refusals(_ extra: [String], message: String) throws {
        let cli = CLIRunner.fresh()
        let run = try cli.run(["simulate", "--engine", "cksyncengine", "--seeds", "2"] + extra, home: false)
        #expect(run.status == 64)
        #expect(run.standardError.contains(message), "\(run.standardError)")
    }
}

/// `simulate --build cksyncengine`: the app simulator's own steps and invariants over devices whose build is
/// CKSyncEngine's delegate.
@Suite("CLI: the app simulator over the delegate's build")
struct CLISimulateBuildTests {
    @Test("a sweep of the delegate's build says its build in JSON, and its replay command names it")
    func buildIsSaid() throws {
        let run = try CLIRunner.fresh().run(
            ["simulate", "--seeds", "2", "--steps", "20", "--build", "cksyncengine", "--json"], home: false)
        #expect(run.status == 0, "\(run.standardError)")
        let configuration = run.json["configuration"] as? [String: Any]
        #expect(configuration?["build"] as? String == "cksyncengine")
        let traced = try CLIRunner.fresh().run(
            ["simulate", "--seed", "1", "--steps", "10", "--build", "cksyncengine", "--trace"], home: false)
        #expect(traced.standardOutput.contains("every device's build cksyncengine"), "\(traced.standardOutput)")
    }

    @Test(
        "--build is refused where it means nothing: beside the delegate sweep, or with the app engine's coverage",
        arguments: [
            (["--engine", "cksyncengine", "--build", "cksyncengine"], "not with --engine cksyncengine"),
            (["--build", "cksyncengine", "--coverage"], "not with --build cksyncengine"),
            (["--build", "beta"], "beta"),
        ])
    func buildRefusedWhereItMeansNothing(_ arguments: [String], _ words: String) throws {
        let run = try CLIRunner.fresh().run(["simulate", "--seeds", "2"] + arguments, home: false)
        #expect(run.status == 64)
        #expect(run.standardError.contains(words), "\(run.standardError)")
    }
}

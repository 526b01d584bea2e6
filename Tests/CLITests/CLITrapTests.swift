import Foundation
import Testing

@Suite("CLI: the first-launch traps")
struct CLITrapTests {
    @Test("trap 1 reproduced and fixed, through launch --json")
    func trapOne() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on")
        let first = try cli.ok("launch", "--device", "phone", "--skip-directory-fix", "--json").json
        let status = first["status"] as? [String: Any]
        #expect(status?["state"] as? String == "paused")
        #expect(status?["reason"] as? String == "storeCreationFailed")
        #expect(status?["fallbackOccurred"] as? Bool == true)
        #expect((first["fallbackDetail"] as? String)?.contains("NSCocoaErrorDomain Code=512") == true)
        #expect(first["userCreatedStore"] as? String == "local")
        let second = try cli.ok("launch", "--device", "phone", "--skip-directory-fix", "--json").json
        #expect((second["status"] as? [String: Any])?["state"] as? String == "on")
        try cli.ok("device", "add", "fixed", "--account", "alice", "--sync", "on")
        let fixed = try cli.ok("launch", "--device", "fixed", "--json").json
        #expect((fixed["status"] as? [String: Any])?["state"] as? String == "on")
    }

    @Test("trap 2 reproduced: the launch process dies by SIGTRAP after CloudKit's line")
    func trapTwoReproduced() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on", "--no-entitlement")
        let run = try cli.run(["launch", "--device", "phone", "--skip-entitlement-check"])
        #expect(run.signal == SIGTRAP)
        #expect(run.standardError.contains("Significant issue"))
        #expect(run.standardError.contains("com.apple.developer.icloud-services"))
    }

    @Test("trap 2 fixed: the launch pauses with missingEntitlement")
    func trapTwoFixed() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on", "--no-entitlement")
        let run = try cli.ok("launch", "--device", "phone", "--json").json
        let status = run["status"] as? [String: Any]
        #expect(status?["reason"] as? String == "missingEntitlement")
        #expect(status?["copy"] as? String == "Sync is paused: this build cannot reach iCloud.")
        #expect(!FileManager.default.fileExists(atPath: cli.home + "/cloud/alice"), "no container code ran")
    }
}

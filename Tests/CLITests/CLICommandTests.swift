import Foundation
import Testing

@Suite("CLI: commands")
struct CLICommandTests {
    static let everyCommand: [[String]] = [
        [], ["init"], ["device"], ["device", "add"], ["device", "list"], ["device", "reinstall"],
        ["device", "upgrade"],
        ["account"], ["account", "sign-in"], ["account", "sign-out"], ["account", "status"],
        ["account", "start-fresh"],
        ["launch"], ["sync"], ["sync", "on"], ["sync", "off"], ["sync", "now"], ["sync", "status"], ["record"],
        ["record", "add"], ["record", "edit"], ["record", "delete"], ["record", "list"], ["inspect"], ["audit"],
        ["fault"],
        ["fault", "inject"], ["fault", "list"], ["fault", "clear"], ["simulate"], ["simulate", "merge"], ["demo"],
        ["cloud"], ["cloud", "record"], ["cloud", "record", "put"], ["cloud", "record", "edit"],
        ["cloud", "record", "delete"], ["cloud", "record", "list"], ["cloud", "zone"], ["cloud", "zone", "list"],
        ["cloud", "zone", "delete"],
    ]

    @Test("every command answers --help with its overview and usage", arguments: everyCommand)
    func helpOnEveryCommand(path: [String]) throws {
        let run = try CLIRunner.fresh().run(path + ["--help"], home: false)
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(run.standardOutput.contains("USAGE: privatesync"))
    }

    @Test(
        "options that exclude one another are refused by the command's validation, before any world is opened",
        arguments: [
            ["sync", "now", "--device", "phone", "--send-only", "--fetch-only"],
            ["record", "add", "CheckIn", "--device", "phone", "--count", "2", "--json"],
            ["inspect", "--html", "w.html", "--device", "phone"],
        ])
    func validationComesBeforeTheWorld(arguments: [String]) throws {
        let run = try CLIRunner.fresh().run(arguments)
        #expect(run.status == 64, "\(run.standardError)")
        #expect(!run.standardError.contains("usage:"), "a refused combination is not a malformed line")
    }

    @Test("init creates a world and refuses to touch it again")
    func initRefusesAnExistingWorld() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        let before = try cli.worldDigest()
        let again = try cli.run(["init"])
        #expect(again.status == 65)
        #expect(again.standardError.contains("already exists"))
        #expect(try cli.worldDigest() == before)
    }

    @Test("devices: add, list, reinstall, upgrade")
    func devices() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on")
        try cli.ok("device", "add", "old-build", "--no-entitlement")
        let list = try cli.ok("device", "list", "--json").json["devices"] as? [[String: Any]]
        #expect(list?.count == 2)
        #expect(list?.first?["name"] as? String == "old-build")
        #expect(list?.first?["entitlement"] as? Bool == false)
        #expect(list?.last?["syncPreference"] as? Bool == true)
        try cli.ok("launch", "--device", "phone")
        try cli.ok("device", "reinstall", "phone", "--sync", "off")
        let status = try cli.run(["sync", "status", "--device", "phone"])
        #expect(status.status == 66, "a reinstalled app has never been launched")
        #expect(status.standardError.contains("never been launched"))
        try cli.ok("device", "upgrade", "old-build", "--entitlement", "on")
        let upgraded = try cli.ok("device", "list", "--json").json["devices"] as? [[String: Any]]
        #expect(upgraded?.first?["entitlement"] as? Bool == true)
        #expect(upgraded?.first?["buildVersion"] as? Int == 2)
    }

    @Test("records: add prints the name, edit and delete find it, list shows both partitions")
    func records() throws {
        let cli = try CLIRunner.world(launching: "phone")
        let name = try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=3", "--field", "date=2026-11-29T08:00:00Z"
        )
        .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(name.count == 36)
        try cli.ok(
            "record", "add", "Baseline", "--device", "phone", "--field", "metric=hrv", "--field", "value=41.5",
            "--field",
            "computedAt=now", "--field", "windowDays=7")
        try cli.addNote(on: "phone", "--field", "tags=sleep", "--field", "tags=mood")
        try cli.ok("record", "edit", name, "--device", "phone", "--field", "note=better", "--field", "mood=4")
        let list = try cli.ok("record", "list", "--device", "phone", "--json").json["records"] as? [[String: Any]] ?? []
        #expect(list.count == 3)
        let checkIn = list.first { $0["name"] as? String == name }
        let fields = checkIn?["fields"] as? [String: Any]
        #expect(fields?["mood"] as? Int == 4)
        #expect(fields?["note"] as? String == "better")
        #expect(fields?["date"] as? String == "2026-11-29T08:00:00Z")
        #expect(checkIn?["partition"] as? String == "userCreated")
        let note = list.first { $0["type"] as? String == "Note" }
        #expect((note?["fields"] as? [String: Any])?["tags"] as? [String] == ["sleep", "mood"])
        #expect(list.contains { $0["type"] as? String == "Baseline" && $0["partition"] as? String == "localOnly" })
        try cli.ok("record", "edit", name, "--device", "phone", "--clear", "note")
        try cli.ok("record", "delete", name, "--device", "phone")
        let after =
            try cli.ok("record", "list", "--device", "phone", "--type", "CheckIn", "--json").json["records"] as? [Any]
        #expect(after?.isEmpty == true)
    }

    @Test("two devices converge through the CLI, and the audit is clean")
    func twoDevicesConverge() throws {
        let cli = try CLIRunner.world(launching: "phone", "tablet")
        for mood in 1...3 { try cli.addCheckIn(mood: mood, on: "phone") }
        try cli.ok(
            "record", "add", "Note", "--device", "tablet", "--field", "title=q", "--field", "body=b", "--field",
            "date=now")
        try cli.ok(
            "record", "add", "ManualWorkout", "--device", "tablet", "--field", "activity=run", "--field",
            "startedAt=now", "--field", "durationMinutes=30")
        for device in ["phone", "tablet", "phone"] { try cli.ok("sync", "now", "--device", device) }
        func names(_ device: String) throws -> Set<String> {
            let records =
                try cli.ok("record", "list", "--device", device, "--json").json["records"] as? [[String: Any]] ?? []
            return Set(
                records.filter { $0["partition"] as? String == "userCreated" }.compactMap { $0["name"] as? String })
        }
        #expect(try names("phone") == names("tablet"))
        #expect(try names("phone").count == 4)
        let inspect = try cli.ok("inspect", "--device", "tablet", "--json").json
        let types = inspect["types"] as? [String: [String: Any]]
        #expect(types?["CheckIn"]?["local"] as? Int == 3 && types?["CheckIn"]?["container"] as? Int == 3)
        #expect(types?["ManualWorkout"]?["local"] as? Int == 1 && types?["ManualWorkout"]?["container"] as? Int == 0)
        #expect(inspect["pendingChanges"] as? Int == 0)
        let audit = try cli.run(["audit", "--json"])
        #expect(audit.status == 0)
        #expect(audit.json["clean"] as? Bool == true)
        #expect(audit.json["recordsChecked"] as? Int == 4)
    }

    @Test("sync on and off flip the switch and reconfigure the store")
    func syncSwitch() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice")
        try cli.ok("launch", "--device", "phone")
        #expect(try cli.ok("sync", "status", "--device", "phone", "--json").json["state"] as? String == "off")
        let on = try cli.ok("sync", "on", "--device", "phone", "--json").json
        #expect(on["state"] as? String == "on")
        let off = try cli.ok("sync", "off", "--device", "phone", "--json").json
        #expect(off["state"] as? String == "off")
        #expect(off["fallbackOccurred"] as? Bool == false)
    }

    @Test("faults: injected, met by the next sync, listed, cleared")
    func faults() throws {
        let cli = try CLIRunner.world(launching: "phone")
        try cli.addCheckIn(mood: 2, on: "phone")
        try cli.ok("fault", "inject", "network-unavailable", "--count", "2")
        let waiting = try cli.ok("fault", "list", "--json").json["waiting"] as? [[String: Any]]
        #expect(waiting?.first?["remaining"] as? Int == 2)
        // A cycle that failed transiently and will be retried exits 75 (EX_TEMPFAIL).
        let failed = try cli.exits(75, "sync", "now", "--device", "phone", "--json").json
        #expect(failed["outcome"] as? String == "retry:networkUnavailable")
        let status = failed["status"] as? [String: Any]
        #expect(status?["state"] as? String == "on" && status?["detail"] as? String == "waiting")
        #expect(status?["pendingChanges"] as? Int == 1)
        try cli.ok("fault", "inject", "quota-exceeded", "--account", "alice")
        try cli.ok("fault", "clear")
        #expect(
            try cli.ok("fault", "list", "--json").json["waiting"] as? [Any] == nil
                || (try cli.ok("fault", "list", "--json").json["waiting"] as? [Any])?.isEmpty == true)
        let struck = try cli.ok("fault", "list", "--json").json["struck"] as? [String: Int]
        #expect(struck?["network-unavailable"] == 1)
        #expect(try cli.ok("sync", "now", "--device", "phone", "--json").json["outcome"] as? String == "ok")
    }

    @Test("an account switch pauses with accountChanged; start-fresh keeps the old data apart and syncs the rest")
    func accountSwitch() throws {
        let cli = try CLIRunner.syncedWorld(mood: 2)
        try cli.ok("account", "sign-in", "bob", "--device", "phone")
        // Sync paused: 69 (EX_UNAVAILABLE).
        let paused = try cli.exits(69, "sync", "now", "--device", "phone", "--json").json["status"] as? [String: Any]
        #expect(paused?["reason"] as? String == "accountChanged")
        try cli.ok("account", "start-fresh", "--device", "phone")
        try cli.addCheckIn(mood: 5, on: "phone")
        let resumed = try cli.ok("sync", "now", "--device", "phone", "--json").json
        #expect(resumed["sentSaves"] as? Int == 1)
        #expect(try cli.run(["audit"]).status == 0)
    }

    @Test("account status --set pauses sync with the status's reason, and back")
    func accountStatusChangesTheStatus() throws {
        let cli = try CLIRunner.world(launching: "phone")
        let restricted = try cli.ok("account", "status", "--device", "phone", "--set", "restricted", "--json").json
        #expect(restricted["status"] as? String == "restricted")
        #expect(
            try cli.ok("sync", "status", "--device", "phone", "--json").json["reason"] as? String == "accountRestricted"
        )
        try cli.ok("account", "status", "--device", "phone", "--set", "available")
        #expect(try cli.ok("sync", "status", "--device", "phone", "--json").json["state"] as? String == "on")
        try cli.ok("account", "sign-out", "--device", "phone")
        #expect(try cli.ok("sync", "status", "--device", "phone", "--json").json["reason"] as? String == "noAccount")
    }

    @Test("simulate runs seeds, summarises them in JSON, and replays one seed with its trace")
    func simulate() throws {
        let cli = CLIRunner.fresh()
        let sweep = try cli.run(["simulate", "--seeds", "4", "--steps", "40", "--json"], home: false)
        #expect(sweep.status == 0, "\(sweep.standardError)")
        let summary = sweep.json
        #expect(summary["seeds"] as? Int == 4)
        #expect((summary["steps"] as? Int ?? 0) >= 160)
        #expect((summary["invariantChecks"] as? Int ?? 0) > 0)
        #expect(summary["failures"] as? [Any] != nil && (summary["failures"] as? [Any])!.isEmpty)
        #expect(summary["faults"] as? [String: Int] != nil)
        let shard = try cli.run(["simulate", "--seeds", "4", "--shard", "1/2", "--steps", "20", "--json"], home: false)
        #expect(shard.json["seeds"] as? Int == 2)
        let first = try cli.run(["simulate", "--seed", "3", "--steps", "30", "--trace"], home: false)
        let second = try cli.run(["simulate", "--seed", "3", "--steps", "30", "--trace"], home: false)
        #expect(first.status == 0)
        #expect(first.standardOutput == second.standardOutput, "a replay prints the same text")
        #expect(first.standardOutput.hasPrefix("0000 +000000s world: "))
    }

    @Test("the demo walks through a fresh world and exits 0")
    func demo() throws {
        let cli = CLIRunner.fresh()
        let run = try cli.run(["demo"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("died by signal 5 (SIGTRAP)"))
        #expect(run.standardOutput.contains("paused (storeCreationFailed"))
        #expect(run.standardOutput.contains("Audit of every container file"))
        #expect(run.standardOutput.contains("→ clean"))
    }
}

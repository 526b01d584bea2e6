import Foundation
import Testing

/// What `sync now` exits with, and what it says, when the cycle cannot finish.
@Suite("CLI: sync now outcomes")
struct CLISyncNowTests {
    /// A world with one device on alice, sync on, one record synced.
    static func syncedWorld() throws -> CLIRunner {
        try CLIRunner.syncedWorld(mood: 2)
    }

    /// The container files of the world.
    static func containerFiles(_ cli: CLIRunner) -> [String] {
        let root = cli.home + "/cloud"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".sqlite") && !$0.contains("faults") }.map { root + "/" + $0 }
    }

    @Test("a container whose records table is gone is refused with 74 and pauses, instead of being retried for ever")
    func unusableContainerPauses() throws {
        let cli = try Self.syncedWorld()
        let container = try #require(Self.containerFiles(cli).first)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", container, "DROP TABLE records"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        try cli.addCheckIn(mood: 3, on: "phone")
        let run = try cli.exits(74, "sync", "now", "--device", "phone")
        #expect(run.standardError.contains("cannot be read"))
        let status = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect(status["state"] as? String == "paused")
        #expect(status["reason"] as? String == "containerUnusable")
    }

    @Test("sync now exits 78 when sync is off on the device, and sends nothing")
    func syncOffExits78() throws {
        let cli = try Self.syncedWorld()
        try cli.ok("sync", "off", "--device", "phone")
        try cli.addCheckIn(mood: 3, on: "phone")
        try cli.exits(78, "sync", "now", "--device", "phone")
    }

    @Test("sync now exits 0 when the cycle finished")
    func finishedExits0() throws {
        let cli = try Self.syncedWorld()
        try cli.exits(0, "sync", "now", "--device", "phone")
    }

    @Test("sync now --json carries the request log; --send-only and --fetch-only run half a cycle; both at once is 64")
    func requestLogAndHalfCycles() throws {
        let cli = try Self.syncedWorld()
        try cli.addCheckIn(mood: 3, on: "phone")
        let fetched = try cli.ok("sync", "now", "--device", "phone", "--fetch-only", "--json").json
        let fetchOps = (fetched["requests"] as? [[String: Any]])?.compactMap { $0["operation"] as? String } ?? []
        #expect(fetchOps.contains("recordZoneChanges") && !fetchOps.contains("modifyRecords"))
        let sent = try cli.ok("sync", "now", "--device", "phone", "--send-only", "--json").json
        let requests = sent["requests"] as? [[String: Any]] ?? []
        #expect(!requests.contains { $0["operation"] as? String == "recordZoneChanges" })
        let modify = try #require(requests.first { $0["operation"] as? String == "modifyRecords" })
        #expect((modify["items"] as? [Any])?.count == 1)
        #expect(modify["batchSize"] as? Int == 400)
        try cli.exits(64, "sync", "now", "--device", "phone", "--send-only", "--fetch-only")
        let verbose = try cli.ok("sync", "now", "--device", "phone", "--verbose")
        #expect(verbose.standardOutput.contains("request 1: accountStatus"))
    }

    @Test("inspect --json shows the engine's state: bound user, zone, tokens, consent, outcome, batch size")
    func inspectShowsTheEngine() throws {
        let cli = try Self.syncedWorld()
        let engine = try #require(try cli.ok("inspect", "--device", "phone", "--json").json["engine"] as? [String: Any])
        #expect(engine["boundUser"] as? String != nil)
        #expect(engine["zone"] as? String == "PrivateSyncZone")
        #expect((engine["zoneChangeToken"] as? String)?.isEmpty == false)
        #expect((engine["databaseChangeToken"] as? String)?.isEmpty == false)
        #expect(engine["reuploadConsent"] as? Bool == false)
        #expect(engine["lastOutcome"] as? String == "ok")
        #expect(engine["batchSize"] as? Int == 400)
    }

    @Test("sync reset keeps the records, and the next cycle converges without duplicates; the audit says so")
    func resetThenConverge() throws {
        let cli = try Self.syncedWorld()
        try cli.ok("sync", "reset", "--device", "phone")
        let engine = try cli.ok("inspect", "--device", "phone", "--json").json["engine"] as? [String: Any]
        #expect(engine?["boundUser"] is NSNull || engine?["boundUser"] == nil)
        try cli.ok("sync", "now", "--device", "phone")
        let audit = try cli.ok("audit", "--convergence", "--json").json
        #expect(audit["converged"] as? Bool == true)
        let device = (audit["devices"] as? [[String: Any]])?.first
        #expect(device?["recordsOnDevice"] as? Int == 1 && device?["recordsInContainer"] as? Int == 1)
    }

    @Test("audit --convergence exits 1 when a device misses what its container has and nothing explains it")
    func convergenceAuditFails() throws {
        let cli = try Self.syncedWorld()
        try cli.ok("device", "add", "tablet", "--account", "alice", "--sync", "on")
        try cli.ok("launch", "--device", "tablet")
        let run = try cli.exits(1, "audit", "--convergence")
        #expect(run.standardOutput.contains("tablet ↔ alice: NOT converged"))
        #expect(run.standardOutput.contains("missing"))
        try cli.ok("sync", "now", "--device", "tablet")
        try cli.exits(0, "audit", "--convergence")
    }

    @Test(
        "after an upgrade to a build without the entitlement, no command traps and none reads on",
        arguments: [
            ["record", "list", "--device", "phone"], ["inspect", "--device", "phone"],
            ["sync", "status", "--device", "phone"], ["sync", "now", "--device", "phone"],
            ["record", "add", "CheckIn", "--device", "phone", "--field", "mood=2", "--field", "date=now"],
        ])
    func upgradeWithoutEntitlementNeverTraps(arguments: [String]) throws {
        let cli = try Self.syncedWorld()
        try cli.ok("device", "upgrade", "phone", "--entitlement", "off")
        let run = try cli.run(arguments)
        #expect(run.signal == nil && run.status < 128, "\(arguments) trapped: \(run.status)")
        let status = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect(status["state"] as? String == "paused")
        #expect(status["reason"] as? String == "missingEntitlement")
    }

    @Test("a zone another client deleted is not recorded as the user's doing; only a purge is")
    func zoneDeletedByAnotherClientNamesNoCulprit() throws {
        let cli = try CLIRunner.syncedWorld(device: "A", mood: 1)
        try cli.ok("cloud", "zone", "delete", "PrivateSyncZone", "--account", "alice")
        try cli.exits(69, "sync", "now", "--device", "A")
        let engine = try cli.ok("inspect", "--device", "A", "--json").json["engine"] as? [String: Any]
        let error = engine?["lastError"] as? String ?? ""
        #expect(error.contains("by the user, another device or another client"), "\(error)")
        #expect(!error.contains("iCloud settings"), "\(error)")
    }

    @Test("a full fetch that misses a record (a delayed delivery) does not delete it with its acknowledged edit")
    func fullFetchMissingARecordKeepsItsEdit() throws {
        let cli = try CLIRunner.world(launching: "phone")
        for index in 1...5 {
            try cli.ok(
                "record", "add", "CheckIn", "--device", "phone", "--name", "r\(index)", "--field", "mood=1", "--field",
                "date=2026-01-01")
        }
        try cli.syncNow("--device", "phone")
        try cli.ok("record", "edit", "r4", "--device", "phone", "--field", "mood=5")
        try cli.ok("fault", "inject", "token-expired")
        try cli.ok("fault", "inject", "delayed-delivery", "--record", "r2")
        for _ in 0..<3 { try cli.syncNow("--device", "phone") }
        let records = try cli.ok("record", "list", "--device", "phone", "--json").json["records"] as? [[String: Any]]
        let r4 = records?.first { $0["name"] as? String == "r4" }
        #expect((r4?["fields"] as? [String: Any])?["mood"] as? Int == 5, "the acknowledged edit of r4 was lost")
        let container = try cli.ok("cloud", "record", "list", "--account", "alice", "--json").json
        let up = (container["records"] as? [[String: Any]])?.first { $0["name"] as? String == "r4" }
        #expect((up?["fields"] as? [String: Any])?["mood"] as? Int == 5, "and reached the container")
        try cli.ok("audit", "--convergence")
    }

    @Test("sync reset is refused while the device's data belongs to another account than the one signed in")
    func resetRefusedAfterAnAccountSwitch() throws {
        let cli = try CLIRunner.syncedWorld(device: "A", mood: 1)
        try cli.addCheckIn(mood: 2, on: "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        try cli.exits(69, "sync", "now", "--device", "A")
        let reset = try cli.exits(65, "sync", "reset", "--device", "A")
        #expect(reset.standardError.contains("another iCloud account"), "\(reset.standardError)")
        try cli.exits(69, "sync", "now", "--device", "A")
        let status = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(status["reason"] as? String == "accountChanged", "\(status)")
    }
}

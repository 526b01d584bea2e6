import Foundation
import Testing

/// A device whose build is CKSyncEngine's delegate (`device add --engine cksyncengine`): the same commands, the same
/// launch, the same status model and exit codes as a device of the app's own engine, with `PartitionMirror` syncing
/// underneath.
@Suite("CLI: a device syncing through CKSyncEngine")
struct CLIMirroredDeviceTests {
    /// A world with `devices` on alice, each a build of CKSyncEngine's delegate, sync on, launched.
    static func world(_ devices: String...) throws -> CLIRunner {
        try CLIRunner.world(launchingAll: devices, engine: "cksyncengine")
    }

    /// The names of the records `device` lists.
    static func names(_ cli: CLIRunner, _ device: String) throws -> Set<String> {
        let records = try cli.ok("record", "list", "--device", device, "--json").json["records"] as? [[String: Any]]
        return Set((records ?? []).compactMap { $0["name"] as? String })
    }

    /// The names of the records in `account`'s container.
    static func containerNames(_ cli: CLIRunner, _ account: String = "alice") throws -> Set<String> {
        let records =
            try cli.ok("cloud", "record", "list", "--account", account, "--json").json["records"] as? [[String: Any]]
        return Set((records ?? []).compactMap { $0["name"] as? String ?? $0["recordName"] as? String })
    }

    /// Adds a note on `device`, and returns its name.
    static func addNote(_ cli: CLIRunner, on device: String, title: String = "t") throws -> String {
        try cli.addNote(on: device, title: title).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a note goes up from one device and down to the other; a local-only record never leaves its device")
    func notesSyncAndBaselinesStay() throws {
        let cli = try Self.world("A", "B")
        let note = try Self.addNote(cli, on: "A")
        let baseline = try cli.ok(
            "record", "add", "Baseline", "--device", "A", "--field", "metric=rhr", "--field", "value=52",
            "--field", "computedAt=now", "--field", "windowDays=7"
        ).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(before["state"] as? String == "on" && before["pendingChanges"] as? Int == 1, "\(before)")
        let sent = try cli.ok("sync", "now", "--device", "A", "--json").json
        #expect(sent["sentSaves"] as? Int == 1 && sent["outcome"] as? String == "ok", "\(sent)")
        #expect(try Self.containerNames(cli) == [note])
        let fetched = try cli.ok("sync", "now", "--device", "B", "--json").json
        #expect(fetched["fetchedModifications"] as? Int == 1, "\(fetched)")
        #expect(try Self.names(cli, "B") == [note])
        #expect(try Self.names(cli, "A") == [note, baseline])
        for device in ["A", "B"] {
            let status = try cli.ok("sync", "status", "--device", device, "--json").json
            #expect(status["detail"] as? String == "upToDate" && status["pendingChanges"] as? Int == 0, "\(status)")
        }
        try cli.ok("audit", "--convergence")
    }

    @Test("signed back in, one sync now fetches what another device sent meanwhile, and says what it kept")
    func signedBackInFetchesInOneCycle() throws {
        let cli = try Self.world("A", "B")
        _ = try Self.addNote(cli, on: "A", title: "a")
        try cli.ok("sync", "now", "--device", "A")
        try cli.ok("account", "sign-out", "--device", "A")
        let fromB = try Self.addNote(cli, on: "B", title: "b")
        try cli.ok("sync", "now", "--device", "B")
        // The engine hears of the sign-out (the device still runs the launch that opened the container).
        try cli.exits(69, "sync", "now", "--device", "A")
        try cli.ok("account", "sign-in", "alice", "--device", "A")
        // The account back, the mirror makes its engine again from the state the account left: the cycle goes on
        // with that engine (driven to its end on the first, it said "fetched" and kept nothing).
        let back = try cli.ok("sync", "now", "--device", "A", "--json").json
        #expect(try Self.names(cli, "A").contains(fromB))
        #expect((back["fetchedModifications"] as? Int ?? 0) >= 1, "\(back)")
    }

    @Test(
        "another account signed in pauses sync at once, before the engine heard (69 at the next sync), until the user starts afresh; nothing of alice reaches bob",
        arguments: [false, true])
    func accountSwitchPausesUntilStartFresh(syncFirst: Bool) throws {
        let cli = try Self.world("A")
        let note = try Self.addNote(cli, on: "A")
        try cli.ok("sync", "now", "--device", "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        // Paused from the moment bob signs in: the next sync can only pause.
        let paused = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(paused["state"] as? String == "paused" && paused["reason"] as? String == "accountChanged", "\(paused)")
        if syncFirst { try cli.exits(69, "sync", "now", "--device", "A") }
        // The user's choice answers the pause the status shows, whether the engine heard of the switch or not.
        try cli.ok("account", "start-fresh", "--device", "A")
        try cli.exits(65, "account", "start-fresh", "--device", "A")
        let bobs = try Self.addNote(cli, on: "A", title: "bob's")
        try cli.ok("sync", "now", "--device", "A")
        #expect(try Self.containerNames(cli, "bob") == [bobs])
        #expect(try Self.containerNames(cli, "alice") == [note])
        #expect(!(try Self.names(cli, "A").contains(note)))
    }

    @Test("the user's deletion of the zone pauses sync (69); sync on uploads everything again in one sync now")
    func zoneDeletionPausesUntilSyncOn() throws {
        let cli = try Self.world("A")
        let note = try Self.addNote(cli, on: "A")
        try cli.ok("sync", "now", "--device", "A")
        try cli.ok("cloud", "zone", "delete", "PrivateSyncZone", "--account", "alice")
        try cli.exits(69, "sync", "now", "--device", "A")
        let paused = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(paused["reason"] as? String == "userDeletedZone", "\(paused)")
        #expect(try Self.containerNames(cli).isEmpty)
        try cli.ok("sync", "off", "--device", "A")
        try cli.ok("sync", "on", "--device", "A")
        // The zone is created first, then the records its absence refused: both in one cycle.
        let again = try cli.ok("sync", "now", "--device", "A", "--json").json
        #expect(again["sentSaves"] as? Int == 1, "\(again)")
        #expect(try Self.containerNames(cli) == [note])
        let status = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(status["detail"] as? String == "upToDate", "\(status)")
    }

    @Test("a record written while signed out goes up to the account signed in next, and is its: never the next one's")
    func recordWrittenSignedOutStaysWithItsAccount() throws {
        let cli = try Self.world("A")
        _ = try Self.addNote(cli, on: "A", title: "first")
        try cli.ok("sync", "now", "--device", "A")
        // Signed out and back in with no sync between: the engine hears of nothing.
        try cli.ok("account", "sign-out", "--device", "A")
        try cli.addNote(on: "A", title: "written signed out", "--name", "X")
        try cli.ok("account", "sign-in", "alice", "--device", "A")
        try cli.ok("sync", "now", "--device", "A")
        #expect(try Self.containerNames(cli, "alice").contains("X"))
        // Bob signs in, and the user starts afresh with him: X is alice's, and goes with her data.
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        try cli.ok("account", "start-fresh", "--device", "A")
        #expect(!(try Self.names(cli, "A").contains("X")), "alice's X stayed in bob's store")
        try cli.ok("sync", "now", "--device", "A")
        #expect(!(try Self.containerNames(cli, "bob").contains("X")), "alice's X reached bob's container")
    }

    @Test("audit --convergence compares a delegate's device with the container of the account its data belongs to")
    func convergenceUsesTheDataAccount() throws {
        let cli = try Self.world("A")
        _ = try Self.addNote(cli, on: "A")
        try cli.ok("sync", "now", "--device", "A")
        // Bob signs in; the engine hears of it and pauses: the data is still alice's, and in her container.
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        try cli.exits(69, "sync", "now", "--device", "A")
        let audit = try cli.ok("audit", "--convergence", "--json").json
        let devices = audit["devices"] as? [[String: Any]] ?? []
        #expect(devices.first?["account"] as? String == "alice" && audit["converged"] as? Bool == true, "\(audit)")
    }

    @Test(
        "a cycle paused for another account reports nothing fetched: what that account's zone held, the mirror kept none of"
    )
    func pausedCycleCountsNothing() throws {
        let cli = try CLIRunner.world(launchingAll: ["A"], engine: "cksyncengine")
        try cli.ok("device", "add", "B", "--account", "bob", "--sync", "on", "--engine", "cksyncengine")
        try cli.ok("launch", "--device", "B")
        _ = try Self.addNote(cli, on: "B", title: "bob's")
        try cli.ok("sync", "now", "--device", "B")
        _ = try Self.addNote(cli, on: "A", title: "alice's")
        try cli.ok("sync", "now", "--device", "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        // The engine now serves bob and fetches his zone; the mirror, paused for the switch, stores none of it.
        let run = try cli.exits(69, "sync", "now", "--device", "A", "--json")
        #expect(run.json["fetchedModifications"] as? Int == 0, "\(run.json)")
        #expect(!(try Self.names(cli, "A").contains { try Self.containerNames(cli, "bob").contains($0) }))
    }

    @Test("sync reset is refused (64): the state is CKSyncEngine's delegate's, not the app engine's")
    func syncResetIsRefused() throws {
        let cli = try Self.world("A")
        let run = try cli.exits(64, "sync", "reset", "--device", "A")
        #expect(run.standardError.contains("CKSyncEngine"))
    }

    @Test("the build's engine is listed, and kept by an upgrade")
    func upgradeKeepsTheEngine() throws {
        let cli = try Self.world("A")
        try cli.ok("device", "add", "B", "--account", "alice", "--sync", "on")
        try cli.ok("device", "upgrade", "A")
        let devices = try cli.ok("device", "list", "--json").json["devices"] as? [[String: Any]] ?? []
        let engines = Dictionary(
            uniqueKeysWithValues: devices.compactMap { device in
                (device["name"] as? String).map { ($0, device["syncEngine"] as? String ?? "") }
            })
        #expect(engines == ["A": "cksyncengine", "B": "app"])
        let profile = try String(contentsOfFile: cli.home + "/devices/B/device.json", encoding: .utf8)
        #expect(!profile.contains("syncEngine"), "a build of the app's own engine is written as before: \(profile)")
    }

    @Test("a profile whose build names an unknown engine is refused (74), naming the key and the engines there are")
    func unknownEngineIsRefused() throws {
        let cli = try Self.world("A")
        let path = cli.home + "/devices/A/device.json"
        let profile = try String(contentsOfFile: path, encoding: .utf8)
        try profile.replacingOccurrences(of: "\"cksyncengine\"", with: "\"realm\"")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let run = try cli.exits(74, "sync", "status", "--device", "A")
        #expect(run.standardError.contains("build.syncEngine") && run.standardError.contains("cksyncengine"))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\"realm\""), "left as it was")
    }
}

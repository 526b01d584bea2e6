import Foundation
import Testing

/// The archive files of `account start-fresh`: one per start-fresh, even when one was interrupted and run again;
/// none left once restored.
@Suite("CLI: start-fresh archives")
struct CLIArchiveTests {
    static func support(_ cli: CLIRunner) -> String {
        cli.home + "/devices/A/AppGroup/Library/Application Support"
    }

    static func archives(_ cli: CLIRunner) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: support(cli) + "/Archives")) ?? []).sorted()
    }

    /// Device A synced two records under alice, then signed into bob and paused with accountChanged.
    static func switchedWorld() throws -> CLIRunner {
        let cli = try CLIRunner.world(launching: "A")
        for mood in 1...2 { try cli.addCheckIn(mood: mood, on: "A") }
        try cli.syncNow("--device", "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        try cli.syncNow("--device", "A")
        return cli
    }

    @Test("a start-fresh interrupted after writing its archive, then run again, leaves one archive")
    func interruptedStartFreshLeavesOneArchive() throws {
        let cli = try Self.switchedWorld()
        let store = Self.support(cli) + "/UserCreated.store"
        let saved = try Data(contentsOf: URL(fileURLWithPath: store))
        try cli.ok("account", "start-fresh", "--device", "A")
        #expect(Self.archives(cli).count == 1)
        // Put the store back as it was before: the state of a start-fresh killed right after its archive was written.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        try saved.write(to: URL(fileURLWithPath: store))
        let again = try cli.ok("account", "start-fresh", "--device", "A")
        #expect(again.standardOutput.contains("2 record(s)"))
        #expect(Self.archives(cli).count == 1, "\(Self.archives(cli))")
    }

    @Test("a restored archive leaves no .restored, -wal or -shm file, and its records are back")
    func restoredArchiveLeavesNothing() throws {
        let cli = try Self.switchedWorld()
        try cli.ok("account", "start-fresh", "--device", "A")
        try cli.syncNow("--device", "A")
        #expect(Self.archives(cli).count == 1)
        try cli.ok("account", "sign-in", "alice", "--device", "A")
        try cli.syncNow("--device", "A")
        try cli.ok("account", "start-fresh", "--device", "A")
        // Only the archive made for bob (empty: nothing was written under him) is left; alice's is gone whole.
        #expect(Self.archives(cli).count == 1, "\(Self.archives(cli))")
        #expect(Self.archives(cli).allSatisfy { $0.hasSuffix(".store") }, "\(Self.archives(cli))")
        let records = try cli.ok("record", "list", "--device", "A", "--json").json["records"] as? [[String: Any]]
        #expect(records?.count == 2)
    }

    /// A world where A synced a check-in (mood 1) with alice, then signed in to bob, edited it there to mood 5
    /// and started afresh: the store, edit and all, is archived.
    private static func archivedEdit() throws -> CLIRunner {
        let cli = try CLIRunner.world(launching: "A")
        let name = try cli.addCheckIn(mood: 1, on: "A").standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        try cli.syncNow("--device", "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        try cli.ok("record", "edit", name, "--device", "A", "--field", "mood=5")
        try cli.ok("account", "start-fresh", "--device", "A")
        return cli
    }

    @Test("back on the archived account before syncing with the new one: the archive, and an edit in it, come back")
    func archiveComesBackBeforeTheStoreIsBound() throws {
        let cli = try Self.archivedEdit()
        #expect(Self.archives(cli).count == 1)
        // Straight back to alice: the store, started afresh, is bound to no one yet.
        try cli.ok("account", "sign-in", "alice", "--device", "A")
        try cli.ok("sync", "now", "--device", "A")
        #expect(Self.archives(cli).isEmpty, "\(Self.archives(cli))")
        let records = try cli.ok("record", "list", "--device", "A", "--json").json["records"] as? [[String: Any]]
        #expect(records?.count == 1)
        #expect((records?.first?["fields"] as? [String: Any])?["mood"] as? Int == 5, "the edit made under bob is back")
        let container = try cli.ok("cloud", "record", "list", "--account", "alice", "--json").json
        let synced = (container["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any]
        #expect(synced?["mood"] as? Int == 5, "and it reached alice's container")
    }

    @Test("an archive that cannot be brought back keeps the store unbound, and comes back once it can")
    func failedRestoreWaitsAndComesBack() throws {
        let cli = try Self.archivedEdit()
        let archive = Self.support(cli) + "/Archives/" + (Self.archives(cli).first ?? "")
        let sound = try Data(contentsOf: URL(fileURLWithPath: archive))
        // The archive cannot be read now (as a full disk or a damaged file would keep it): sync waits for it.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: archive))
        try cli.ok("account", "sign-in", "alice", "--device", "A")
        let waiting = try cli.exits(75, "sync", "now", "--device", "A")
        #expect(
            waiting.standardOutput.contains("archived records could not be brought back"), "\(waiting.standardOutput)")
        let engine = try cli.ok("inspect", "--device", "A", "--json").json["engine"] as? [String: Any]
        #expect(engine?["boundUser"] == nil, "the store was bound before its archive came back")
        // Readable again: it comes back, with the edit made under bob, and syncs.
        try sound.write(to: URL(fileURLWithPath: archive))
        try cli.ok("sync", "now", "--device", "A")
        #expect(Self.archives(cli).isEmpty)
        let records = try cli.ok("record", "list", "--device", "A", "--json").json["records"] as? [[String: Any]]
        #expect((records?.first?["fields"] as? [String: Any])?["mood"] as? Int == 5)
    }
}

import Foundation
import PrivateSyncSQLite
import Testing

/// A record deleted and made again under its name before any sync, after a first save of the old one whose answer was
/// lost: the new record is an acknowledged write, and another device's deletion of the old one must leave it alone.
@Suite("CLI: a name deleted and made again before a sync")
struct CLIDeleteAndMakeAgainTests {
    @Test(
        "a record deleted and made again under its name, before a sync, survives another device's deletion of the old one",
        arguments: ["app", "cksyncengine"])
    func nameMadeAgainSurvivesTheOldOnesDeletion(engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["A", "B"], engine: engine)
        try cli.addNote(on: "A", title: "first")
        try cli.ok("sync", "now", "--device", "A")
        try cli.addNote(on: "A", title: "old", "--name", "X")
        // The save lands; its answer is lost: the engine keeps X among the creations that may have landed.
        try cli.ok("fault", "inject", "server-response-lost", "--account", "alice", "--device", "A", "--record", "X")
        try cli.syncNow("--device", "A")
        try cli.ok("sync", "now", "--device", "B")
        try cli.ok("record", "delete", "X", "--device", "B")
        try cli.ok("sync", "now", "--device", "B")
        // The user deletes X and writes a new X: a new record, never sent, which B's deletion of the old one must
        // leave alone. Before the store's delete forgot the creation in flight, the app's own engine deleted it and
        // said "Everything you wrote is in your iCloud".
        try cli.ok("record", "delete", "X", "--device", "A")
        try cli.addNote(on: "A", title: "new", "--name", "X")
        try cli.ok("sync", "now", "--device", "A")
        try Self.expectNewX(cli)
    }

    @Test(
        "through CKSyncEngine, a record made again whose first save went unanswered survives another device's deletion of the old one"
    )
    func madeAgainWithItsSaveUnansweredSurvives() throws {
        let cli = try CLIRunner.world(launchingAll: ["A", "B"], engine: "cksyncengine")
        try cli.addNote(on: "A", title: "old", "--name", "X")
        try cli.ok("sync", "now", "--device", "A")
        try cli.ok("sync", "now", "--device", "B")
        // A deletes X and writes it again before a sync: the new X's save takes the delete's place, meets the old X
        // on the server, and its answer is lost: for all A knows, it may have landed.
        try cli.ok("record", "delete", "X", "--device", "A")
        try cli.addNote(on: "A", title: "new", "--name", "X")
        // `record add` marks it, in its own transaction, as made anew: a deletion fetched before it lands is of the
        // old X, even once a save of it went unanswered.
        let marks = try Connection(
            path: cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store", mode: .readOnly
        ).query("SELECT value FROM sync_state WHERE key = 'creations_not_landed'", row: { $0.text(0) })
        #expect(marks == ["X\n"])
        try cli.ok("fault", "inject", "server-response-lost", "--account", "alice", "--device", "A", "--record", "X")
        try cli.syncNow("--device", "A")
        // B deletes X. Whichever X its deletion took, A keeps what the user wrote last, and sends it again if need be.
        try cli.ok("record", "delete", "X", "--device", "B")
        try cli.ok("sync", "now", "--device", "B")
        try cli.syncNow("--device", "A")
        try cli.syncNow("--device", "A")
        try Self.expectNewX(cli)
    }

    /// Expects A to hold the X the user wrote last (`title` = new), and alice's container to hold an X.
    static func expectNewX(_ cli: CLIRunner, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let records = try cli.ok("record", "list", "--device", "A", "--json").json["records"] as? [[String: Any]]
        let x = records?.first { $0["name"] as? String == "X" }
        #expect(
            (x?["fields"] as? [String: Any])?["title"] as? String == "new",
            "A lost its acknowledged X: \(records ?? [])", sourceLocation: sourceLocation)
        let container =
            try cli.ok("cloud", "record", "list", "--account", "alice", "--json").json["records"] as? [[String: Any]]
        #expect(
            (container ?? []).contains { ($0["name"] ?? $0["recordName"]) as? String == "X" }, "\(container ?? [])",
            sourceLocation: sourceLocation)
    }
}

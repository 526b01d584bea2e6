import Foundation
import Testing

/// What `sync now` exits with, and what it says, when the cycle cannot finish.
@Suite("CLI: sync now outcomes")
struct CLISyncNowTests {
    /// A world with one device on alice, sync on, one record synced.
    static func syncedWorld() throws -> CLIRunner {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on")
        try cli.ok("launch", "--device", "phone")
        try cli.ok("record", "add", "CheckIn", "--device", "phone", "--field", "mood=2", "--field", "date=now")
        try cli.ok("sync", "now", "--device", "phone")
        return cli
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
        try cli.ok("record", "add", "CheckIn", "--device", "phone", "--field", "mood=3", "--field", "date=now")
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
        try cli.ok("record", "add", "CheckIn", "--device", "phone", "--field", "mood=3", "--field", "date=now")
        try cli.exits(78, "sync", "now", "--device", "phone")
    }

    @Test("sync now exits 0 when the cycle finished")
    func finishedExits0() throws {
        let cli = try Self.syncedWorld()
        try cli.exits(0, "sync", "now", "--device", "phone")
    }
}

import Foundation
import PrivateSyncSQLite
import Testing

/// A file another process holds locked past the wait: the command exits 75, "busy, try again", changes nothing, and
/// succeeds once the lock is gone; it never calls the healthy file damaged (74) and a sync never pauses for it.
@Suite("CLI: busy files")
struct CLIBusyTests {
    /// How another process holds a file: a write transaction (writers wait, readers go on), or SQLite's exclusive
    /// locking mode after a write (everyone waits, even for the header's shared lock).
    enum Hold: String, CaseIterable, CustomTestStringConvertible {
        case writeTransaction
        case exclusiveLockingMode

        var testDescription: String { rawValue }

        /// Opens `path` and holds it so; the lock lasts as long as the connection.
        func hold(_ path: String) throws -> Connection {
            let connection = try Connection(path: path, mode: .readWrite)
            switch self {
            case .writeTransaction:
                try connection.execute("BEGIN IMMEDIATE")
            case .exclusiveLockingMode:
                try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
                // The exclusive lock is taken by the first write and kept after it commits.
                try connection.execute("BEGIN IMMEDIATE; CREATE TEMP TABLE held(x); COMMIT")
                try connection.execute("BEGIN EXCLUSIVE; COMMIT")
            }
            return connection
        }
    }

    /// A short wait, so that the test sees the failure at once (the default is 10 seconds).
    static let shortWait = ["PRIVATESYNC_BUSY_TIMEOUT_MS": "50"]

    static func world() throws -> CLIRunner {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "A", "--account", "alice", "--sync", "on")
        try cli.ok("launch", "--device", "A")
        try cli.addNote(on: "A", "--name", "first")
        try cli.syncNow("--device", "A")
        return cli
    }

    @Test(
        "a record add on a store another process holds locked exits 75 'busy, try again' and adds nothing",
        arguments: Hold.allCases)
    func recordAddOnBusyStore(hold: Hold) throws {
        let cli = try Self.world()
        let store = cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store"
        // The lock lasts exactly as long as the holder's connection: while the command runs.
        let busy = try withExtendedLifetime(try hold.hold(store)) {
            try cli.run(
                [
                    "record", "add", "Note", "--device", "A", "--name", "second", "--field", "title=t", "--field",
                    "body=b", "--field", "date=now",
                ],
                environment: Self.shortWait)
        }
        #expect(busy.status == 75, "\(busy.standardError)")
        #expect(busy.standardError.contains("busy, try again"), "\(busy.standardError)")
        #expect(!busy.standardError.contains("damaged"), "\(busy.standardError)")
        let names = try cli.ok("record", "list", "--device", "A", "--json").standardOutput
        #expect(names.contains("\"first\"") && !names.contains("\"second\""), "\(names)")
        try cli.addNote(on: "A", "--name", "second")
    }

    @Test(
        "a sync whose container another process holds locked waits and retries; it never pauses as unusable",
        arguments: Hold.allCases)
    func syncOnBusyContainer(hold: Hold) throws {
        let cli = try Self.world()
        try cli.addNote(on: "A", "--name", "second")
        let (busy, status) = try withExtendedLifetime(
            try hold.hold(cli.home + "/cloud/alice/iCloud.com.example.me.sqlite")
        ) {
            (
                try cli.run(["sync", "now", "--device", "A"], environment: Self.shortWait),
                try cli.ok("sync", "status", "--device", "A", "--json").json
            )
        }
        #expect(busy.status == 75, "\(busy.standardOutput) \(busy.standardError)")
        #expect(!(busy.standardOutput + busy.standardError).contains("damaged"))
        #expect(status["state"] as? String == "on", "\(status)")
        // Met at the container's open (exclusive): the command refused before the cycle, nothing recorded; met by
        // a request (a write transaction): the cycle recorded a retry. Either way on, and never paused.
        #expect(["waiting", "syncing"].contains(status["detail"] as? String ?? ""), "\(status)")
        #expect(
            (busy.standardError + busy.standardOutput).contains("busy"), "\(busy.standardOutput) \(busy.standardError)")
        if status["detail"] as? String == "waiting" {
            #expect((status["copy"] as? String ?? "").contains("another process held the files locked"), "\(status)")
        }
        #expect(status["reason"] is NSNull, "\(status)")
        try cli.ok("sync", "now", "--device", "A")
        let after = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(after["pendingChanges"] as? Int == 0, "\(after)")
    }

    @Test(
        "PRIVATESYNC_BUSY_TIMEOUT_MS that is not a number of milliseconds up to an hour is refused (64)",
        arguments: ["", "-1", "abc", "3600001", "1e3", "99999999999"])
    func badBusyTimeoutRefused(value: String) throws {
        let cli = CLIRunner.fresh()
        let run = try cli.run(["init"], environment: ["PRIVATESYNC_BUSY_TIMEOUT_MS": value])
        #expect(run.status == 64, "\(run.standardError)")
        #expect(run.standardError.contains("PRIVATESYNC_BUSY_TIMEOUT_MS"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: cli.home))
    }
}

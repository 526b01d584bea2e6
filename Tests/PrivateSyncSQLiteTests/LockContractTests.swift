import PrivateSyncFileSystem
import Testing

@testable import PrivateSyncSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite's locks belong to the process and the file: closing any descriptor of a database file drops every lock
/// the process holds on it. Whatever the layer does to a file that a connection of this process has open must leave
/// that connection's locks in place, or another process may checkpoint and delete the write-ahead log under it: the
/// lost acknowledged writes and corrupted indexes of four `record add` loops on one store.
///
/// The probe is SQLite itself, in another process: with this process's shared lock on the database in place, the
/// `sqlite3` command's closing connection cannot take the exclusive lock, so it leaves the log alone; with the lock
/// dropped, it checkpoints the log and deletes it.
@Suite("Lock contract")
struct LockContractTests {
    /// Something the layer does to a database file that a connection of this process holds open.
    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case openAnotherConnection = "opening a second connection"
        case openReadOnly = "opening a read-only connection"
        case openWithPageCheck = "opening with the page-by-page check"
        case openWithRememberedCheck = "opening with a remembered page-by-page check"
        case readMemoState = "reading the file's state for the memo"

        var testDescription: String { rawValue }

        func perform(on path: String, holder: Connection, memo: VerificationMemo) throws {
            let format = SQLiteLayerTests.format
            switch self {
            case .openAnotherConnection: _ = try DatabaseFile.open(at: path, format: format, create: false)
            case .openReadOnly: _ = try DatabaseFile.open(at: path, format: format, create: false, readOnly: true)
            case .openWithPageCheck:
                _ = try DatabaseFile.open(at: path, format: format, create: false, verifyIntegrity: true)
            case .openWithRememberedCheck:
                for _ in 0..<2 {
                    _ = try DatabaseFile.open(
                        at: path, format: format, create: false, verifyIntegrity: true, verificationMemo: memo)
                }
            case .readMemoState: _ = VerificationMemo.state(of: path, through: holder)
            }
        }
    }

    @Test("what the layer does to an open database keeps this process's locks on it", arguments: Operation.allCases)
    func operationKeepsTheLocks(_ operation: Operation) throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "lock-contract")
        let path = folder + "/test.db"
        let holder = try DatabaseFile.open(at: path, format: SQLiteLayerTests.format, create: true)
        try holder.run("INSERT INTO items (name) VALUES ('acknowledged')")
        #expect(FileSystem.exists(path + "-wal"), "a committed write waits in the log")

        try operation.perform(on: path, holder: holder, memo: VerificationMemo(path: folder + "/verified.memo"))

        let probe = try #require(
            ChildProcess.run("/usr/bin/sqlite3", [path, "SELECT count(*) FROM items"]),
            "the sqlite3 command (from .ci/run's packages) could not be started")
        #expect(probe.termination == .exited(0), "\(probe.standardError)")
        #expect(probe.standardOutput == "1\n")
        #expect(
            FileSystem.exists(path + "-wal"),
            "another process's closing connection took the exclusive lock: this process's shared lock was dropped")
        try holder.run("INSERT INTO items (name) VALUES ('after')")
        #expect(try holder.scalarInt("SELECT count(*) FROM items") == 2)
        #expect(try holder.quickCheckProblems() == [])
    }

    @Test("the header is read under a shared lock: no other process checkpoints and deletes the log meanwhile")
    func headerIsReadUnderASharedLock() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "lock-contract")
        let path = folder + "/test.db"
        _ = try DatabaseFile.open(at: path, format: SQLiteLayerTests.format, create: true)
        // A connection that has run no statement holds no lock of its own: only the read's lock stands in the way.
        let connection = try Connection(path: path, mode: .readWrite)
        let probe = try connection.withSharedFileLock { () throws(SQLiteError) in
            ChildProcess.run("/usr/bin/sqlite3", [path, "INSERT INTO items (name) VALUES ('other')"])
        }
        #expect(probe?.termination == .exited(0), "\(probe?.standardError ?? "sqlite3 did not start")")
        #expect(
            FileSystem.exists(path + "-wal"),
            "the other process's closing connection took the exclusive lock during the read, and deleted the log")
        #expect(try connection.scalarInt("SELECT count(*) FROM items") == 1, "nothing was lost")
    }

    @Test("a write-ahead log whose database is gone is refused, not replayed into a new file, and left as it is")
    func orphanLogIsRefused() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "lock-contract")
        let path = folder + "/test.db"
        let holder = try DatabaseFile.open(at: path, format: SQLiteLayerTests.format, create: true)
        try holder.execute("PRAGMA wal_autocheckpoint = 0")
        try holder.run("INSERT INTO items (name) VALUES ('in the log')")
        // The database removed, its log left behind (by hand, or a tool that deleted the file first).
        let orphan = folder + "/orphan.db"
        // Read through SQLite's own open log: this process holds the database open.
        let log = try #require(try holder.logFileStart(count: 1 << 20)).bytes
        #expect(!log.isEmpty)
        try FileSystem.writeAtomically(log, to: orphan + "-wal")
        #expect(throws: DatabaseFileError.self) {
            _ = try DatabaseFile.open(at: orphan, format: SQLiteLayerTests.format, create: true)
        }
        #expect(!FileSystem.exists(orphan), "no database was made beside it")
        #expect(try FileSystem.read(orphan + "-wal") == log, "the log is untouched")
        _ = holder
    }
}

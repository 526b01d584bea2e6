import PrivateSyncFileSystem
import Synchronization
import Testing

@testable import PrivateSyncSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file is checked page by page once per change: a state remembered is not checked again, and any change to the
/// file (through SQLite, or by hand, at the same size) makes it checked again, so damage is still refused.
@Suite("Verification memo")
struct VerificationMemoTests {
    static let format = SQLiteLayerTests.format

    /// A database file holding a few rows, and a memo beside it, in a fresh folder.
    static func makeFile() throws -> (path: String, memo: VerificationMemo) {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "verification-memo")
        let path = folder + "/test.db"
        let connection = try DatabaseFile.open(at: path, format: format, create: true)
        try connection.transaction {
            for index in 0..<200 {
                try connection.run(
                    "INSERT INTO items (name, data) VALUES (?, ?)", .text("item \(index)"),
                    .blob([UInt8](repeating: UInt8(index % 256), count: 100)))
            }
        }
        return (path, VerificationMemo(path: folder + "/verified.memo"))
    }

    /// Opens `path` with the page-by-page check and `memo`; returns how many checks that opening ran.
    @discardableResult
    static func open(_ path: String, _ memo: VerificationMemo, readOnly: Bool = false) throws -> Int {
        let before = memo.checksRun.load(ordering: .relaxed)
        _ = try DatabaseFile.open(
            at: path, format: format, create: false, readOnly: readOnly, verifyIntegrity: true,
            verificationMemo: memo)
        return memo.checksRun.load(ordering: .relaxed) - before
    }

    /// Waits until the file's times are older than the coarse clock, so that a check now may be remembered (a state
    /// stamped in the clock tick of the check never is). Not a timing assertion: it only waits for the tick to pass.
    static func waitForClockTick(_ path: String) throws {
        let connection = try DatabaseFile.open(at: path, format: format, create: false)
        let state = try #require(VerificationMemo.state(of: path, through: connection))
        for _ in 0..<2000 where !(state.latest < VerificationMemo.coarseNow()) { usleep(1000) }
        #expect(state.latest < VerificationMemo.coarseNow())
    }

    /// Overwrites `count` bytes at `offset` in place: the file keeps its size, as damage or a hand edit might.
    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let fd = Glibc.open(path, O_WRONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
        #expect(written == bytes.count)
    }

    @Test("a file checked once is not checked again while it is unchanged, read-only or not")
    func unchangedFileIsCheckedOnce() throws {
        let (path, memo) = try Self.makeFile()
        try Self.waitForClockTick(path)
        #expect(try Self.open(path, memo) == 1)
        #expect(FileSystem.exists(memo.path))
        #expect(try Self.open(path, memo) == 0)
        #expect(try Self.open(path, memo, readOnly: true) == 0)
        #expect(try FileSystem.permissions(of: memo.path) == 0o600)
    }

    @Test("a file changed after its check is checked again: through SQLite, and by hand at the same size")
    func changedFileIsCheckedAgain() throws {
        let (path, memo) = try Self.makeFile()
        try Self.waitForClockTick(path)
        #expect(try Self.open(path, memo) == 1)
        #expect(try Self.open(path, memo) == 0)

        // A write through SQLite (into the log, then folded into the file).
        let connection = try DatabaseFile.open(at: path, format: Self.format, create: false)
        try connection.run("INSERT INTO items (name) VALUES ('later')")
        #expect(try Self.open(path, memo) == 1)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try Self.open(path, memo) == 1)

        // Damage at the same size, in the table's root page, after the state was remembered again (by the opening
        // just before, or by this one).
        try Self.waitForClockTick(path)
        try Self.open(path, memo)
        #expect(try Self.open(path, memo) == 0)
        let root = try #require(try connection.scalarInt("SELECT rootpage FROM sqlite_schema WHERE name = 'items'"))
        let pageSize = Int(try #require(try connection.scalarInt("PRAGMA page_size")))
        try Self.overwrite(path, at: (Int(root) - 1) * pageSize, with: [UInt8](repeating: 0x5A, count: 12))
        #expect(throws: DatabaseFileError.self) { try Self.open(path, memo) }
        #expect(throws: DatabaseFileError.self) { try Self.open(path, memo) }
    }

    @Test("a memo that is damaged, foreign or missing is ignored: the file is checked, and the memo written anew")
    func damagedMemoIsIgnored() throws {
        let (path, memo) = try Self.makeFile()
        try Self.waitForClockTick(path)
        #expect(try Self.open(path, memo) == 1)
        let sound = try FileSystem.read(memo.path)
        var damaged = sound
        damaged[damaged.count / 2] ^= 0x01
        for bad in [damaged, Array(sound.dropLast(5)), Array("not a memo\n".utf8), []] {
            try FileSystem.writeAtomically(bad, to: memo.path)
            #expect(try Self.open(path, memo) == 1)
            #expect(try FileSystem.read(memo.path) == sound)
            #expect(try Self.open(path, memo) == 0)
        }
        try FileSystem.removeItem(memo.path)
        #expect(try Self.open(path, memo) == 1)
        #expect(try Self.open(path, memo) == 0)
    }

    @Test("nothing is remembered in a folder without write permission")
    func readOnlyFolderIsNotWritten() throws {
        let (path, memo) = try Self.makeFile()
        try Self.waitForClockTick(path)
        let folder = FileSystem.parentDirectory(of: path)
        #expect(chmod(folder, 0o500) == 0)
        defer { chmod(folder, 0o700) }
        #expect(try Self.open(path, memo, readOnly: true) == 1)
        #expect(!FileSystem.exists(memo.path))
        #expect(try Self.open(path, memo, readOnly: true) == 1)
    }
}

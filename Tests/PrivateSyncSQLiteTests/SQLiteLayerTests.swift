import PrivateSyncFileSystem
import Testing

@testable import PrivateSyncSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("SQLite layer")
struct SQLiteLayerTests {
    static let format = DatabaseFormat(
        applicationID: 0x7465_7374, version: 2, name: "test database",
        schema: ["CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB)"])

    static func temporaryPath() -> String {
        try! FileSystem.makeTemporaryDirectory(prefix: "sqlite-layer") + "/test.db"
    }

    @Test("values bind and read back, including empty text and blobs, NULL and extremes")
    func bindAndRead() throws {
        let connection = try DatabaseFile.openInMemory(format: Self.format)
        let insert = try connection.prepare("INSERT INTO items (id, name, data) VALUES (?, ?, ?)")
        try insert.bind(.integer(Int64.max), .text(""), .blob([]))
        try insert.run()
        try insert.bind(.integer(Int64.min), .text("naïve ☃"), .null)
        try insert.run()
        let rows = try connection.query("SELECT id, name, data IS NULL, length(data) FROM items ORDER BY id") {
            ($0.int64(0), $0.text(1), $0.int(2), $0.optionalInt64(3))
        }
        #expect(rows.count == 2)
        #expect(rows[0] == (Int64.min, "naïve ☃", 1, nil))
        #expect(rows[1] == (Int64.max, "", 0, 0))
    }

    @Test("bound values survive reuse: one statement run many times, values large and small, text and blobs")
    func boundValuesSurviveReuse() throws {
        let connection = try DatabaseFile.openInMemory(format: Self.format)
        let insert = try connection.cachedStatement("INSERT INTO items (id, name, data) VALUES (?, ?, ?)")
        // Sizes either side of the statement's scratch space, so that values are bound both from it and copied by
        // SQLite, several in one row, and reused after each reset.
        let sizes = [0, 1, 15, 16, 2000, 2095, 2096, 4096, 5000]
        var expected: [(Int64, String, [UInt8])] = []
        for (index, size) in sizes.enumerated() {
            let name = String(repeating: "n", count: size) + "é"
            let data = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try insert.bind(Int64(index), at: 1)
            try insert.bind(name, at: 2)
            try insert.bind(data, at: 3)
            try insert.run()
            expected.append((Int64(index), name, data))
        }
        try insert.bindText(Array("once".utf8), at: 2)
        try insert.bindText(Array("twice, rebound before running".utf8), at: 2)
        try insert.bind(Int64(99), at: 1)
        try insert.bind([UInt8](), at: 3)
        try insert.run()
        expected.append((99, "twice, rebound before running", []))
        let rows = try connection.query("SELECT id, name, data, typeof(data) FROM items ORDER BY id") {
            ($0.int64(0), $0.text(1), $0.blob(2), $0.text(3))
        }
        #expect(rows.count == expected.count)
        for (row, want) in zip(rows, expected) {
            #expect(row.0 == want.0)
            #expect(row.1 == want.1)
            #expect(row.2 == want.2)
            #expect(row.3 == "blob")
        }
        #expect(try connection.scalarInt("SELECT count(*) FROM items WHERE name IS NULL OR data IS NULL") == 0)
    }

    @Test(
        "text written in place binds whole whether the estimate was short, exact or long; empty text is not NULL",
        arguments: [(0, 0), (11, 0), (11, 5), (11, 11), (11, 4096), (70_000, 1)])
    func textWrittenInPlaceBindsWhole(length: Int, estimate: Int) throws {
        let connection = try DatabaseFile.openInMemory(format: Self.format)
        let text = [UInt8]((0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        var calls: [Int] = []
        let insert = try connection.prepare("INSERT INTO items (id, name) VALUES (1, ?)")
        try insert.bindText(at: 1, estimate: estimate) { base, capacity in
            calls.append(capacity)
            text.withUnsafeBufferPointer { source in
                if source.count <= capacity, let start = source.baseAddress {
                    base.update(from: start, count: source.count)
                }
            }
            return text.count
        }
        try insert.run()
        #expect(
            try connection.query("SELECT name, typeof(name) FROM items") { [$0.text(0), $0.text(1)] } == [
                [String(decoding: text, as: UTF8.self), "text"]
            ])
        // One pass when the estimate was enough, a second with the exact size when it was short.
        #expect(calls == (length <= max(estimate, 1) ? [max(estimate, 1)] : [max(estimate, 1), length]))
    }

    @Test("a transaction that throws is rolled back; one that returns is committed")
    func transactionsCommitOrRollBack() throws {
        struct Abort: Error {}
        let connection = try DatabaseFile.openInMemory(format: Self.format)
        #expect(throws: Abort.self) {
            try connection.transaction {
                try connection.run("INSERT INTO items (name) VALUES ('lost')")
                throw Abort()
            }
        }
        try connection.transaction { try connection.run("INSERT INTO items (name) VALUES ('kept')") }
        #expect(try connection.query("SELECT name FROM items") { $0.text(0) } == ["kept"])
        #expect(!connection.isInTransaction)
    }

    @Test("errors carry SQLite's result code, the statement and the file")
    func errorsAreTyped() throws {
        let connection = try DatabaseFile.openInMemory(format: Self.format)
        do {
            try connection.run("INSERT INTO items (id, name) VALUES (1, NULL)")
            Issue.record("a NOT NULL violation was accepted")
        } catch {
            #expect(error.code == .constraint)
            #expect(error.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
            #expect(error.sql?.contains("INSERT INTO items") == true)
            #expect(error.description.contains("SQLITE_CONSTRAINT"))
        }
        #expect(throws: SQLiteError.self) { try connection.prepare("SELECT nonsense FROM nowhere") }
    }

    @Test("a new file is created owner-only, in WAL mode, with the format's application_id")
    func newFileIsConfigured() throws {
        let path = Self.temporaryPath()
        let connection = try DatabaseFile.open(at: path, format: Self.format, create: true)
        #expect(try FileSystem.permissions(of: path) == 0o600)
        #expect(try connection.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try connection.scalarInt("PRAGMA application_id") == 0x7465_7374)
        #expect(try connection.scalarInt("PRAGMA user_version") == 2)
        #expect(!FileSystem.exists(path + ".creating-\(getpid())"))
    }

    @Test("a missing file is refused when not to be created")
    func missingFileIsRefused() {
        let error = #expect(throws: DatabaseFileError.self) {
            try DatabaseFile.open(at: Self.temporaryPath(), format: Self.format, create: false)
        }
        #expect(error?.code == .missing)
    }

    @Test("a file from a newer build is refused and left alone")
    func newerFileIsRefused() throws {
        let path = Self.temporaryPath()
        let newer = DatabaseFormat(
            applicationID: Self.format.applicationID, version: 3, name: "test database", schema: [])
        _ = try DatabaseFile.open(at: path, format: newer, create: true)
        let before = try FileSystem.read(path)
        let error = #expect(throws: DatabaseFileError.self) {
            try DatabaseFile.open(at: path, format: Self.format, create: false)
        }
        #expect(error?.code == .newerVersion)
        #expect(try FileSystem.read(path) == before)
    }

    @Test("a flipped byte inside a page is found by the integrity check, and the file is left alone")
    func integrityCheckFindsDamage() throws {
        let path = Self.temporaryPath()
        do {
            let connection = try DatabaseFile.open(at: path, format: Self.format, create: true)
            try connection.transaction {
                for index in 0..<2000 {
                    try connection.run("INSERT INTO items (name) VALUES (?)", .text("item \(index)"))
                }
            }
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        var bytes = try FileSystem.read(path)
        // Scramble the middle of the second page (the table's root or first leaf).
        for index in 4096 + 8..<4096 + 64 { bytes[index] ^= 0xA5 }
        try FileSystem.writeAtomically(bytes, to: path)
        let error = #expect(throws: DatabaseFileError.self) {
            try DatabaseFile.open(at: path, format: Self.format, create: false, verifyIntegrity: true)
        }
        #expect(error?.code == .damaged)
        #expect(try FileSystem.read(path) == bytes)
    }

    @Test("a header ahead of the file is accepted while the write-ahead log holds the pages, and refused without it")
    func headerAheadOfFileWithLog() throws {
        let path = Self.temporaryPath()
        let writer = try DatabaseFile.open(at: path, format: Self.format, create: true)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.transaction {
            for index in 0..<2000 {
                try writer.run("INSERT INTO items (name) VALUES (?)", .text("item \(index)"))
            }
        }
        // What a checkpoint stopped by a full disk leaves: the first page says the file has grown; it has not.
        let fileSize = try FileSystem.read(path).count
        let claimed = UInt32(fileSize / 4096 + 40)
        var bigEndian = claimed.bigEndian
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        #expect(pwrite(descriptor, &bigEndian, 4, 28) == 4)
        close(descriptor)
        let reader = try DatabaseFile.open(at: path, format: Self.format, create: false, verifyIntegrity: true)
        #expect(try reader.scalarInt("SELECT count(*) FROM items") == 2000)
        // The same file without its log really is missing pages.
        let alone = Self.temporaryPath()
        try FileSystem.writeAtomically(try FileSystem.read(path), to: alone)
        let error = #expect(throws: DatabaseFileError.self) {
            try DatabaseFile.open(at: alone, format: Self.format, create: false)
        }
        #expect(error?.code == .damaged)
        _ = writer
    }
}

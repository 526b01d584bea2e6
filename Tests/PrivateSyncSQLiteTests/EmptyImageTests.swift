import PrivateSyncFileSystem
import Testing

@testable import PrivateSyncSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The first new file of a format is built by SQLite; later ones are its bytes, written: the same file, configured
/// the same way, each owned by the file it was created as.
@Suite("SQLite layer: new files from the empty image")
struct EmptyImageTests {
    /// A format no other test creates, so that its first file in this process is built (`tag` keeps formats apart).
    static func uniqueFormat(_ tag: Int32) -> DatabaseFormat {
        DatabaseFormat(
            applicationID: 0x696D_0000 + tag, version: 3, name: "image test database",
            schema: [
                "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB)",
                "CREATE INDEX items_by_name ON items (name)",
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value ANY) WITHOUT ROWID",
                "INSERT INTO meta (key, value) VALUES ('tag', \(tag))",
            ],
            pageSize: 8192)
    }

    @Test("a second new file of a format is byte for byte the first, before anything is written to either")
    func secondFileIsTheFirstsImage() throws {
        let format = Self.uniqueFormat(1)
        #expect(DatabaseFile.emptyImage(of: format) == nil)
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "empty-image")
        defer { try? FileSystem.removeItem(folder) }
        let first = folder + "/first.db"
        let second = folder + "/second.db"
        _ = try DatabaseFile.open(at: first, format: format, create: true)
        let image = try #require(DatabaseFile.emptyImage(of: format))
        _ = try DatabaseFile.open(at: second, format: format, create: true)
        #expect(try FileSystem.read(first) == image)
        #expect(try FileSystem.read(second) == image)
    }

    @Test("a file made from the image is configured as a built one, holds the schema and its rows, and takes writes")
    func fileFromTheImageWorks() throws {
        let format = Self.uniqueFormat(2)
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "empty-image")
        defer { try? FileSystem.removeItem(folder) }
        _ = try DatabaseFile.open(at: folder + "/built.db", format: format, create: true)
        let path = folder + "/from-image.db"
        let connection = try DatabaseFile.open(at: path, format: format, create: true)
        #expect(try FileSystem.permissions(of: path) == 0o600)
        #expect(try connection.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try connection.scalarInt("PRAGMA application_id") == Int64(0x696D_0002))
        #expect(try connection.scalarInt("PRAGMA user_version") == 3)
        #expect(try connection.scalarInt("PRAGMA page_size") == 8192)
        #expect(try connection.scalarInt("SELECT value FROM meta WHERE key = 'tag'") == 2)
        try connection.execute("INSERT INTO items (name) VALUES ('written')")
        #expect(try connection.scalarInt("SELECT count(*) FROM items WHERE name = 'written'") == 1)
        #expect(try connection.quickCheckProblems().isEmpty)
        #expect(!FileSystem.exists(path + ".creating-\(getpid())"))
    }
}

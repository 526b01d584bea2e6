import PrivateSyncSQLite
import Testing

@testable import DeviceStore

/// New stores are created with 8 KiB pages; a store made with SQLite's default 4 KiB pages (every store before) opens,
/// reads and writes as before, and keeps its page size.
@Suite("Record store: page size")
struct StorePageSizeTests {
    static func pageSize(_ path: String) throws -> Int64? {
        try Connection(path: path, mode: .readOnly).scalarInt("PRAGMA page_size")
    }

    @Test("a new store has 8 KiB pages")
    func newStoreHasLargerPages() throws {
        try withUserStore { store, _ in
            try store.insertCheckIn(mood: 3)
            #expect(try Self.pageSize(store.path) == 8192)
        }
    }

    @Test("a store with 4 KiB pages opens, reads and writes, and keeps its page size")
    func olderStoreKeepsItsPages() throws {
        let folder = TemporaryDirectory()
        var path = ""
        var name = ""
        do {
            let store = try userStore(in: folder.path)
            name = try store.insertCheckIn(mood: 3).name
            path = store.path
        }
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA journal_mode = DELETE")
        try connection.execute("PRAGMA page_size = 4096")
        try connection.execute("VACUUM")
        try connection.execute("PRAGMA journal_mode = WAL")
        #expect(try Self.pageSize(path) == 4096)
        let reopened = try userStore(in: folder.path)
        #expect(try reopened.records().map(\.name) == [name])
        _ = try reopened.insert(
            checkIn, fields: ["mood": .int64(4), "date": someDate], writtenUnder: nil, name: "written-after")
        #expect(try reopened.count() == 2)
        #expect(try Self.pageSize(path) == 4096)
    }
}

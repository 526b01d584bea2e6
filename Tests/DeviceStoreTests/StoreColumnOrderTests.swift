import PrivateSyncSQLite
import Testing

@testable import DeviceStore

/// New stores keep the records' large columns (fields, field versions) last, so that scans of the small ones never
/// read a large value's overflow pages; a store made with the earlier order (fields third, as every store before)
/// opens, reads and writes as before, and keeps its order.
@Suite("Record store: column order")
struct StoreColumnOrderTests {
    static func columns(_ path: String) throws -> [String] {
        try Connection(path: path, mode: .readOnly).query("SELECT name FROM pragma_table_info('records')") {
            $0.text(0)
        }
    }

    /// The records table as every store had it before the large columns moved last.
    static let earlierColumns = [
        "record_name", "record_type", "fields", "field_versions", "origin_user", "created_at", "modified_at",
        "server_change_tag", "server_created_at", "server_modified_at", "server_creator", "server_last_modifier",
    ]

    @Test("a new store has the fields and their versions as its last columns")
    func newStoreKeepsLargeColumnsLast() throws {
        try withUserStore { store, _ in
            try store.insertCheckIn(mood: 3)
            let columns = try Self.columns(store.path)
            #expect(columns.suffix(2) == ["field_versions", "fields"])
            #expect(Set(columns) == Set(Self.earlierColumns))
        }
    }

    @Test("a store with the earlier column order opens, reads the same records, writes, and keeps its order")
    func earlierOrderStillWorks() throws {
        let folder = TemporaryDirectory()
        var path = ""
        var before: [StoredRecord] = []
        do {
            let store = try userStore(in: folder.path)
            let first = try store.insertCheckIn(mood: 3)
            try store.insertCheckIn(mood: 4)
            _ = try store.update(first.name, setting: ["note": .string("edited")])
            before = try store.records()
            path = store.path
        }
        let names = Self.earlierColumns.joined(separator: ", ")
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute(
            """
            BEGIN;
            CREATE TABLE records_earlier (
                record_name TEXT PRIMARY KEY, record_type TEXT NOT NULL, fields TEXT NOT NULL,
                field_versions TEXT NOT NULL, origin_user TEXT, created_at REAL NOT NULL,
                modified_at REAL NOT NULL, server_change_tag TEXT, server_created_at REAL,
                server_modified_at REAL, server_creator TEXT, server_last_modifier TEXT);
            INSERT INTO records_earlier (\(names)) SELECT \(names) FROM records;
            DROP TABLE records;
            ALTER TABLE records_earlier RENAME TO records;
            COMMIT;
            """)
        #expect(try Self.columns(path) == Self.earlierColumns)
        let reopened = try userStore(in: folder.path)
        #expect(try reopened.records() == before)
        try reopened.insertCheckIn(mood: 5, name: "written-after")
        _ = try reopened.update(before[0].name, setting: ["note": .string("edited again")])
        #expect(try reopened.count() == 3)
        #expect(try reopened.record(named: before[0].name)?.fields["note"] == .string("edited again"))
        #expect(try Self.columns(path) == Self.earlierColumns)
    }
}

import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncSQLite
import Testing

@testable import DeviceStore

/// The range check every opening of a store makes of the values the package computes with: a record's dates and
/// column types, a pending change's counters. A hand-edited value out of range is refused, naming the file and the
/// row, and the file is left as it was; every value the package itself writes (and the edges of the ranges) opens.
@Suite("Store check at opening")
struct StoreStateCheckTests {
    /// One hand edit of a row: the table, the assignment, and whether the store must still open.
    struct Edit: CustomTestStringConvertible, Sendable {
        let table: String
        let assignment: String
        let opens: Bool
        var testDescription: String { "\(table) SET \(assignment): \(opens ? "opens" : "refused")" }
    }

    static let edits: [Edit] = [
        // Dates: numbers of seconds since 2001 within 1e10 either way, integer or real; server dates may be NULL.
        Edit(table: "records", assignment: "created_at = 1e10", opens: true),
        Edit(table: "records", assignment: "created_at = -1e10", opens: true),
        Edit(table: "records", assignment: "created_at = 12", opens: true),
        Edit(table: "records", assignment: "created_at = 1.0000001e10", opens: false),
        Edit(table: "records", assignment: "created_at = -1e300", opens: false),
        Edit(table: "records", assignment: "created_at = 9e999", opens: false),
        Edit(table: "records", assignment: "created_at = 'soon'", opens: false),
        Edit(table: "records", assignment: "created_at = x'00'", opens: false),
        Edit(table: "records", assignment: "created_at = NULL", opens: false),
        Edit(table: "records", assignment: "created_at = -9223372036854775808", opens: false),
        Edit(table: "records", assignment: "modified_at = 1e19", opens: false),
        Edit(table: "records", assignment: "server_created_at = NULL, server_modified_at = NULL", opens: true),
        Edit(table: "records", assignment: "server_created_at = 5, server_modified_at = 6.5", opens: true),
        Edit(table: "records", assignment: "server_created_at = 1e11", opens: false),
        Edit(table: "records", assignment: "server_modified_at = 'yesterday'", opens: false),
        // Columns the package reads as text (their TEXT affinity turns a number into text, not a blob).
        Edit(table: "records", assignment: "record_type = x'07'", opens: false),
        Edit(table: "records", assignment: "fields = x'7b7d'", opens: false),
        Edit(table: "records", assignment: "field_versions = x'00'", opens: false),
        Edit(table: "records", assignment: "record_name = x'6e'", opens: false),
        // A rowid table's text primary key allows NULL: the check that ran as SQL skipped such a row (its name read
        // as nil), and it hid any bad row after it.
        Edit(table: "records", assignment: "record_name = NULL", opens: false),
        Edit(table: "pending_changes", assignment: "record_name = NULL", opens: false),
        // A pending change's sequence number and revision: integers from 0 to 2^53.
        Edit(table: "pending_changes", assignment: "queued_seq = 0, revision = 9007199254740992", opens: true),
        Edit(table: "pending_changes", assignment: "queued_seq = -1", opens: false),
        Edit(table: "pending_changes", assignment: "queued_seq = 9007199254740993", opens: false),
        Edit(table: "pending_changes", assignment: "queued_seq = 2.5", opens: false),
        Edit(table: "pending_changes", assignment: "revision = 'two'", opens: false),
        Edit(table: "pending_changes", assignment: "revision = NULL", opens: false),
        Edit(table: "pending_changes", assignment: "record_type = x'00'", opens: false),
    ]

    @Test(
        "a hand-edited record or pending change is refused at opening, naming the file; the edges open",
        arguments: edits)
    func handEditedRowIsRefused(edit: Edit) throws {
        let folder = TemporaryDirectory()
        let path: String
        do {
            let store = try userStore(in: folder.path)
            try store.insertCheckIn(mood: 3, name: "edited")
            path = store.path
        }
        // NOT NULL and CHECK constraints refuse some of these values; a hand edit of the file's bytes does not. The
        // constraints are edited out of the schema first, then the row is edited on a connection that reads it anew.
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            try connection.execute("PRAGMA writable_schema = ON")
            try connection.execute(
                "UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') WHERE name IN ('records', 'pending_changes')"
            )
        }
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            try connection.execute("PRAGMA ignore_check_constraints = ON")
            try connection.execute("UPDATE \(edit.table) SET \(edit.assignment)")
            #expect(connection.changes == 1)
        }
        let before = try FileSystem.read(path)
        if edit.opens {
            #expect(throws: Never.self) { _ = try userStore(in: folder.path) }
        } else {
            let error = #expect(throws: StoreError.self) { _ = try userStore(in: folder.path) }
            #expect(error?.code == .damagedFile)
            #expect(error?.description.contains(path) == true, "\(String(describing: error))")
            #expect(
                error?.description.contains(edit.table == "records" ? "the record " : "the pending change of ") == true)
            #expect(try FileSystem.read(path) == before)
        }
    }

    @Test(
        "a date is a number within 1e10 seconds of 2001, integer or real; a counter an integer from 0 to 2^53",
        arguments: [
            (SQLiteValue.integer(12), true, true), (.integer(10_000_000_000), true, true),
            (.integer(10_000_000_001), false, true), (.integer(Int64.min), false, false), (.integer(-1), true, false),
            (.real(-1e10), true, false), (.real(.infinity), false, false), (.real(.nan), false, false),
            (.integer(9_007_199_254_740_992), false, true), (.integer(9_007_199_254_740_993), false, false),
            (.text("12"), false, false), (.blob([1]), false, false), (.null, false, false), (.real(3), true, false),
        ])
    func datesAndCounters(value: SQLiteValue, isDate: Bool, isCounter: Bool) {
        #expect(StoreStateCheck.isDate(value) == isDate)
        #expect(StoreStateCheck.isOptionalDate(value) == (isDate || value == .null))
        #expect(StoreStateCheck.isCounter(value) == isCounter)
    }
}

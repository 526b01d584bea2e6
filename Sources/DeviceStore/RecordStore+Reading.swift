import PrivateCloud
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Reads of the records: by name, by type, counts and origins, each on a consistent snapshot.
extension RecordStore {
    /// The record of that name, or `nil`.
    public func record(named name: String) throws(StoreError) -> StoredRecord? {
        try read { connection in try Self.record(named: name, connection) }
    }

    /// Whether the store holds a record of that name, read without decoding its fields (up to 1 MB of JSON), so that
    /// finding which store holds a record costs an index lookup.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: Whether a record of that name is here.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func containsRecord(named name: String) throws(StoreError) -> Bool {
        try read { connection in try Self.holdsRecord(named: name, connection) }
    }

    /// Every record, or every record of one type, ordered by creation then name.
    public func records(ofType type: String? = nil) throws(StoreError) -> [StoredRecord] {
        try read { connection in
            let columns = Self.recordColumns
            if let type {
                return try connection.query(
                    "SELECT \(columns) FROM records WHERE record_type = ? ORDER BY created_at, record_name",
                    .text(type),
                    decoding: Self.storedRecord)
            }
            return try connection.query(
                "SELECT \(columns) FROM records ORDER BY created_at, record_name", decoding: Self.storedRecord)
        }
    }

    /// How many records of each type the store holds.
    public func countsByType() throws(StoreError) -> [String: Int] {
        try read { connection in
            Dictionary(
                uniqueKeysWithValues: try connection.query(
                    literal: "SELECT record_type, count(*) FROM records GROUP BY record_type"
                ) { ($0.text(0), $0.int(1)) })
        }
    }

    /// The names of every record in the store (read again only once something was committed to it: the simulator
    /// checks them after every step).
    public func recordNames() throws(StoreError) -> Set<String> {
        try memoizedRead("recordNames") { connection in
            Set(try connection.query(literal: "SELECT record_name FROM records") { $0.text(0) })
        }
    }

    /// Every record's name and the account it was written under, in the order of ``records(ofType:)``, without
    /// reading its fields (read again only once something was committed to the store).
    public func origins() throws(StoreError) -> [RecordOrigin] {
        try memoizedRead("origins") { connection in
            try connection.query(
                literal: "SELECT record_name, origin_user FROM records ORDER BY created_at, record_name"
            ) { row in
                RecordOrigin(name: row.text(0), origin: row.optionalText(1).map { UserRecordID(recordName: $0) })
            }
        }
    }

    /// How many records the store holds.

    public func count() throws(StoreError) -> Int {
        try read { connection in Int(try connection.scalarInt(literal: "SELECT count(*) FROM records") ?? 0) }
    }
}

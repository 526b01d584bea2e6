#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where one account's private database keeps its rows: a SQLite file, or memory.
///
/// The semantics (policies, atomicity, limits, tokens) live once, in ``PrivateDatabase``; a storage only keeps
/// rows and makes groups of changes atomic. Every method but `read`, `write` and `savepoint` is called inside one
/// of those. Errors are the storage's own (SQLite's, a decoding failure); ``PrivateDatabase`` turns them into
/// ``CloudError``.
protocol DatabaseStorage: AnyObject {
    /// Where the rows live, for messages: a file path, or a description of the memory database.
    var location: String { get }

    /// Runs `body` on a consistent snapshot.
    func read<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` as one atomic, durable change: all of it applies, or none.
    func write<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` inside a write; when it throws, only its own changes are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T

    /// An identifier of this database, different for every database ever created.
    func databaseID() throws -> String
    /// Reserves `count` consecutive change sequence numbers and returns the first.
    func reserveSequence(_ count: Int) throws -> Int64

    func zone(named name: String) throws -> StoredZone?
    func zones() throws -> [StoredZone]
    func insertZone(_ zone: StoredZone) throws
    /// Records that the zone changed at `sequence` (for database change fetches): a record change in it, or a change
    /// of it that became visible (``CloudServerControls``).
    func touchZone(named name: String, sequence: Int64) throws
    /// Deletes a zone, its records and its record tombstones, and remembers why at `sequence`.
    func removeZone(
        named name: String, incarnation: Int64, reason: DatabaseChanges.DeletionReason, sequence: Int64)
        throws
    /// Why the zone of this name was last removed, when no zone of that name exists now.
    func lastRemoval(ofZoneNamed name: String) throws -> DatabaseChanges.DeletionReason?
    /// Zone removals after `sequence`, oldest first.
    func zoneRemovals(after sequence: Int64, limit: Int) throws -> [ZoneRemoval]

    func record(in zone: String, named name: String) throws -> Record?
    /// Inserts a record unless one of that name exists; clears the name's tombstone. `false` when it existed.
    func insertRecord(_ row: RecordRow) throws -> Bool
    /// Updates a record of the same type, if its change tag is `expectedChangeTag` (any tag when `nil`).
    ///
    /// - Returns: The record's creation date and creator when it was updated, `nil` when no row matched.
    func updateRecord(_ row: RecordRow, expectedChangeTag: String?) throws -> (Date, UserRecordID)?
    /// Deletes a record and leaves a tombstone; returns its type, or `nil` when there was no such record.
    func deleteRecord(in zone: String, named name: String, sequence: Int64, at date: Date) throws -> String?
    /// Changes in a zone after `sequence`, oldest first, at most `limit`.
    func changes(in zone: String, after sequence: Int64, limit: Int) throws -> [StoredChange]

    func fieldTypes(of recordType: String) throws -> [String: FieldType]
    func addFieldTypes(_ types: [String: FieldType], to recordType: String) throws
}

/// A zone as stored.
struct StoredZone: Sendable, Equatable {
    var name: String
    /// The sequence number at which this zone was created: different for each creation of the same name.
    var incarnation: Int64
    var capabilities: RecordZone.Capabilities
    /// The sequence number of the zone's last change (its creation, a record change in it, or a change of it that
    /// became visible).
    var changeSequence: Int64

    var recordZone: RecordZone { RecordZone(zoneID: ZoneID(uncheckedName: name)) }
}

/// A removal of a zone, as database changes report it.
struct ZoneRemoval: Sendable, Equatable {
    var name: String
    var reason: DatabaseChanges.DeletionReason
    var sequence: Int64
}

/// A record row to write.
struct RecordRow {
    var zone: String
    var name: String
    var recordType: String
    var encodedFields: [UInt8]
    var changeTag: String
    var sequence: Int64
    var date: Date
    var user: UserRecordID
}

/// One change in a zone's history.
enum StoredChange {
    case modified(Record, sequence: Int64)
    case deleted(name: String, recordType: String, sequence: Int64)

    var sequence: Int64 {
        switch self {
        case .modified(_, let sequence), .deleted(_, _, let sequence): sequence
        }
    }
}

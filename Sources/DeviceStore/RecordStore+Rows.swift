import PrivateCloud
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The SQL a record is read from and written to (its columns, its row, its pending change), shared by the
// store's writes, the sync's and the archive's.
extension RecordStore {
    static var recordColumns: String {
        "record_name, record_type, fields, field_versions, origin_user, created_at, modified_at"
    }

    /// The record of a row of ``recordColumns``.
    ///
    /// - Throws: ``StoreError`` `damagedFile`, naming the file and the record, for stored fields or field versions
    ///   that do not decode (the fields' `FieldsDecodingError` as its cause).
    static func storedRecord(_ row: Statement) throws(StoreError) -> StoredRecord {
        let name = row.text(0)
        let fields: [String: FieldValue]
        do {
            fields = try row.withBytes(2) { bytes throws(FieldsDecodingError) in try FieldsJSON.decode(bytes) }
        } catch {
            throw StoreError(
                .damagedFile, "\(row.path) is damaged (record \(name) has unreadable fields; it was left unchanged)",
                underlying: error)
        }
        guard let versions = FieldVersions(encoded: row.text(3)) else {
            throw StoreError(
                .damagedFile,
                "\(row.path) is damaged (record \(name) has unreadable field versions); it was left unchanged")
        }
        return StoredRecord(
            name: name, type: row.text(1), fields: fields, fieldVersions: versions,
            origin: row.optionalText(4).map { UserRecordID(recordName: $0) },
            createdAt: Date(timeIntervalSinceReferenceDate: row.double(5)),
            modifiedAt: Date(timeIntervalSinceReferenceDate: row.double(6)))
    }

    static func record(named name: String, _ connection: Connection) throws -> StoredRecord? {
        // The columns of `recordColumns`, in a literal: a statement run for every record a sync touches.
        try connection.query(
            literal: """
                SELECT record_name, record_type, fields, field_versions, origin_user, created_at, modified_at
                FROM records WHERE record_name = ?
                """, .text(name), decoding: storedRecord
        )
        .first
    }

    /// Whether the store open on `connection` holds a record of that name (an index lookup; no field is read).
    static func holdsRecord(named name: String, _ connection: Connection) throws(SQLiteError) -> Bool {
        try connection.scalarInt(literal: "SELECT 1 FROM records WHERE record_name = ?", .text(name)) != nil
    }

    /// Refuses to write a record its store's next opening would refuse, or a later read could not compute with
    /// (``StoredRecord/storageProblem(serverFields:)``): no write ever makes a store unopenable.
    ///
    /// - Throws: ``StoreError`` `invalidValue` naming the record and what is wrong.
    static func checkStorable(_ record: StoredRecord, serverFields: SystemFields? = nil) throws(StoreError) {
        if let problem = record.storageProblem(serverFields: serverFields) {
            throw StoreError(
                .invalidValue, "the record \(CloudKitNames.quoted(record.name)) cannot be stored: \(problem)")
        }
    }

    static func insertRow(_ record: StoredRecord, _ connection: Connection) throws {
        try checkStorable(record)
        let insert = try connection.cachedStatement(
            literal: """
                INSERT INTO records (record_name, record_type, fields, field_versions, origin_user, created_at,
                    modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        try bindRecordColumns(record, to: insert)
        try insert.run()
    }

    /// Binds a record's own columns to parameters 1 to 7 of `statement`, in the order every statement writing a
    /// row names them: name, type, fields, field versions, owner, creation and modification times.
    static func bindRecordColumns(_ record: StoredRecord, to statement: Statement) throws {
        try statement.bind(record.name, at: 1)
        try statement.bind(record.type, at: 2)
        try statement.bindFields(record.fields, at: 3)
        try statement.bindText(record.fieldVersions.encodedBytes, at: 4)
        try statement.bind(record.origin?.recordName, at: 5)
        try statement.bind(record.createdAt.timeIntervalSinceReferenceDate, at: 6)
        try statement.bind(record.modifiedAt.timeIntervalSinceReferenceDate, at: 7)
    }

    /// Queues a pending change in the user-created store (the local-only store has nothing to send).
    ///
    /// Changes collapse as CKSyncEngine's do: one entry per record, keeping its place in the queue, with the
    /// latest kind (a save then a delete sends the delete; a delete then a save sends the save). Every queueing
    /// takes a new revision from a counter that only grows, so a send that read an older revision never removes a
    /// newer change, even across processes.
    func queue(_ kind: PendingChangeKind, name: String, type: String, _ connection: Connection) throws {
        guard Kind.partition == .userCreated else { return }
        try Self.queue(kind, name: name, type: type, connection)
    }

    static func queue(_ kind: PendingChangeKind, name: String, type: String, _ connection: Connection) throws {
        // `nextRevision`, spelt out in a literal.
        try connection.run(
            literal: """
                INSERT INTO pending_changes (record_name, record_type, kind, queued_seq, revision)
                VALUES (?1, ?2, ?3, COALESCE((SELECT max(queued_seq) FROM pending_changes), 0) + 1,
                    (SELECT value FROM sync_state WHERE key = 'pending_revision'))
                ON CONFLICT (record_name) DO UPDATE SET kind = excluded.kind,
                    revision = (SELECT value FROM sync_state WHERE key = 'pending_revision')
                """, .text(name), .text(type), .text(kind.rawValue))
    }

    /// A SQL expression for a new revision: one more than any revision ever handed out in this store.
    ///
    /// The counter lives in `sync_state` (key `pending_revision`); the subquery both reads and, through the
    /// trigger below, advances it within the same statement's transaction.
    static var nextRevision: String {
        "(SELECT value FROM sync_state WHERE key = 'pending_revision')"
    }
}

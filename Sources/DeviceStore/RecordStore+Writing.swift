public import PrivateCloud
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Inserts, updates and deletes, each in one transaction with its pending change, and the checks a record passes
// before it is written (its fields against the schema, its encoded size against CloudKit's limit).
extension RecordStore {
    /// Inserts a new record.
    ///
    /// - Parameters:
    ///   - type: The record's type, of this store's partition.
    ///   - fields: Its fields; every required field of the type must be present.
    ///   - account: The iCloud account signed in on the device, if any.
    ///   - name: The record's name, as an app that names its records chooses it; `nil` takes the next name from
    ///     the store's name source.
    /// - Returns: The record as stored, with its name.
    /// - Throws: ``StoreError`` naming the field or value that is wrong, `invalidName` for a name CloudKit would
    ///   refuse, `nameInUse` for a name a record of this store already has, or the storage failure.
    @discardableResult
    public func insert(
        _ type: ModelType<Kind>, fields: [String: FieldValue], writtenUnder account: AccountID?, name: String? = nil
    )
        throws(StoreError) -> StoredRecord
    {
        try insert(type, fields: fields, origin: account?.userRecordID, name: name)
    }

    /// Inserts a new record written under the account of a user record, as an app that knows its account only by
    /// the user record its sync engine reports (CKSyncEngine's `signIn(currentUser:)`) writes it.
    ///
    /// - Parameters:
    ///   - type: The record's type, of this store's partition.
    ///   - fields: Its fields; every required field of the type must be present.
    ///   - origin: The user record of the account signed in, if any.
    ///   - name: The record's name, or `nil` for the store's next one.
    /// - Returns: The record as stored, with its name.
    /// - Throws: ``StoreError``, as ``insert(_:fields:writtenUnder:name:)`` documents.
    @discardableResult
    public func insert(
        _ type: ModelType<Kind>, fields: [String: FieldValue], origin: UserRecordID?, name: String? = nil
    )
        throws(StoreError) -> StoredRecord
    {
        let record = try newRecord(type, fields: fields, origin: origin, name: name)
        try write { connection in try self.insertNew(record, named: name != nil, connection) }
        return record
    }

    /// Writes a new record and queues its upload, in the caller's transaction.
    ///
    /// - Parameters:
    ///   - record: The record, from ``newRecord(_:fields:origin:name:)``.
    ///   - named: Whether the caller chose its name (which may then be taken).
    ///   - connection: The transaction's connection.
    /// - Throws: ``StoreError`` `nameInUse`, or the storage failure.
    func insertNew(_ record: StoredRecord, named: Bool, _ connection: Connection) throws {
        // A chosen name may be taken; checked in the inserting transaction, so no other process slips in.
        if named, try Self.holdsRecord(named: record.name, connection) {
            throw StoreError(
                .nameInUse, "a record named \(CloudKitNames.quoted(record.name)) already exists on this device")
        }
        try Self.insertRow(record, connection)
        try queue(.save, name: record.name, type: record.type, connection)
    }

    /// The record ``insert(_:fields:writtenUnder:name:)`` writes: its name checked, its fields validated, its times
    /// and versions now.
    ///
    /// - Throws: ``StoreError`` naming what is wrong, as `insert` documents.
    func newRecord(
        _ type: ModelType<Kind>, fields: [String: FieldValue], origin: UserRecordID?, name: String?
    ) throws(StoreError) -> StoredRecord {
        if let name, let problem = CloudKitNames.problem(withRecordName: name) {
            throw StoreError(.invalidName, "invalid record name: \(problem)")
        }
        try validate(fields, of: type.schema)
        if let missing = type.schema.fields.first(where: { !$0.isOptional && fields[$0.name] == nil }) {
            throw StoreError(.missingField, "a \(type.name) needs a value for \(missing.name) (\(missing.type.name))")
        }
        let now = clock.now()
        let version = FieldVersion(time: now.timeIntervalSinceReferenceDate, device: deviceID)
        let record = StoredRecord(
            name: name ?? names.nextName(), type: type.name, fields: fields,
            fieldVersions: FieldVersions(fields.mapValues { _ in version }), origin: origin,
            createdAt: now,
            modifiedAt: now)
        try checkSize(record)
        return record
    }

    /// Changes fields of an existing record; `nil` clears a field.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - changes: The fields to set or clear.
    /// - Returns: The record as stored now.
    /// - Throws: ``StoreError``: `recordNotFound` when this store has no such record, or what is wrong with a value.
    @discardableResult
    public func update(_ name: String, setting changes: [String: FieldValue?]) throws(StoreError) -> StoredRecord {
        let now = clock.now()
        return try write { connection in
            guard var record = try Self.record(named: name, connection) else {
                throw StoreError(.recordNotFound, "no record named \(name) in the \(Kind.partition) store")
            }
            guard let schema = self.partition.schema.recordType(named: record.type) else {
                throw StoreError(
                    .unknownType, "record \(name) has type \(record.type), which the schema no longer declares")
            }
            try self.validate(changes.compactMapValues { $0 }, of: schema)
            for (key, value) in changes {
                if value == nil, schema.field(named: key)?.isOptional == false {
                    throw StoreError(.missingField, "\(key) is required for a \(record.type); it cannot be cleared")
                }
                if value == nil, schema.field(named: key) == nil {
                    throw StoreError(.unknownField, "a \(record.type) has no field \(key)")
                }
                record.fields[key] = value ?? nil
                record.fieldVersions[key] = FieldVersion.edit(
                    at: now.timeIntervalSinceReferenceDate, by: self.deviceID, superseding: record.fieldVersions[key])
            }
            record.modifiedAt = record.fieldVersions.latest.map { Date(timeIntervalSinceReferenceDate: $0) } ?? now
            try self.checkSize(record)
            try Self.checkStorable(record)
            // The fields encoded straight into the memory SQLite binds (`bindFields`): a pasted text makes them a
            // megabyte, which a String would validate and copy once more, and an array then SQLite copy again.
            let statement = try connection.cachedStatement(
                literal: "UPDATE records SET fields = ?, field_versions = ?, modified_at = ? WHERE record_name = ?")
            try statement.bindFields(record.fields, at: 1)
            try statement.bindText(record.fieldVersions.encodedBytes, at: 2)
            try statement.bind(record.modifiedAt.timeIntervalSinceReferenceDate, at: 3)
            try statement.bind(name, at: 4)
            try statement.run()
            try self.queue(.save, name: name, type: record.type, connection)
            return record
        }
    }

    /// Deletes a record, with its deletion queued. A user-created record stops being among the creations of a request
    /// in flight (`creations_in_flight`) in the same transaction: a record made later under its name is a new one,
    /// which a fetched deletion of the old one leaves alone.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: The record as it was.
    /// - Throws: ``StoreError`` `recordNotFound` when this store has no such record.
    @discardableResult
    public func delete(_ name: String) throws(StoreError) -> StoredRecord {
        try write { connection in try self.deleteRow(named: name, connection) }
    }

    /// The body of ``delete(_:)``, inside its transaction.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - connection: The transaction's connection.
    /// - Returns: The record as it was.
    /// - Throws: ``StoreError`` `recordNotFound` when this store has no such record, or what SQLite throws.
    func deleteRow(named name: String, _ connection: Connection) throws -> StoredRecord {
        guard let record = try Self.record(named: name, connection) else {
            throw StoreError(.recordNotFound, "no record named \(name) in the \(Kind.partition) store")
        }
        try connection.run(literal: "DELETE FROM records WHERE record_name = ?", .text(name))
        try queue(.delete, name: name, type: record.type, connection)
        if Kind.partition == .userCreated {
            // Left among the creations in flight, the name made the engine take a later record made under it for
            // the one that request created, and a fetched deletion of the old one deleted the new one: an
            // acknowledged write lost (`CLIDeleteAndMakeAgainTests`).
            try SyncTransaction(connection: connection, deviceID: deviceID).removeName(
                name, fromListAt: .creationsInFlight)
        }
        return record
    }

    // MARK: Validation

    func validate(_ fields: [String: FieldValue], of type: RecordTypeSchema) throws(StoreError) {
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let field = type.field(named: key) else {
                let known = type.fields.map(\.name).joined(separator: ", ")
                throw StoreError(
                    .unknownField, "a \(type.name) has no field \(CloudKitNames.quoted(key)) (its fields: \(known))")
            }
            guard field.type.accepts(value) else {
                throw StoreError(
                    .wrongFieldType,
                    "\(type.name).\(key) holds \(field.type.name) values, not \(value.type?.name ?? "an empty list")")
            }
            if let problem = value.problem {
                throw StoreError(.invalidValue, "\(type.name).\(key): \(problem)")
            }
        }
    }

    /// Refuses a record that could never sync: CloudKit's 1 MB per record, measured as it would be sent.
    func checkSize(_ record: StoredRecord) throws(StoreError) {
        let size = record.encodedSize
        if size > CloudLimits.cloudKit.maximumRecordBytes {
            throw StoreError(
                .recordTooLarge,
                "the \(record.type) would be \(size) bytes encoded; CloudKit allows \(CloudLimits.cloudKit.maximumRecordBytes) per record"
            )
        }
    }
}

extension RecordStore where Kind == UserCreated {
    /// Deletes a record, as ``delete(_:)`` does, and runs `body` in the same transaction: what a sync engine keeps
    /// of the record elsewhere can then be marked in the store with the deletion, never apart from it (a CKSyncEngine
    /// delegate whose bookkeeping is a file of its own marks the name, `deletions_unrecorded`, until that file says
    /// it).
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - body: More work for the delete's transaction; what it throws rolls the whole delete back.
    /// - Returns: The record as it was.
    /// - Throws: ``StoreError`` `recordNotFound` when this store has no such record, or what `body` throws, wrapped.
    @discardableResult
    public func delete(
        _ name: String, alongside body: (SyncTransaction) throws -> Void
    ) throws(StoreError) -> StoredRecord {
        try write { connection in
            let record = try self.deleteRow(named: name, connection)
            try body(SyncTransaction(connection: connection, deviceID: self.deviceID))
            return record
        }
    }

    /// Inserts a new record, as ``insert(_:fields:origin:name:)`` does, and runs `body` first in the same
    /// transaction, over the store as it was: a sync engine can then mark the name in the store with the record it
    /// makes, never apart from it (a CKSyncEngine delegate marks a record made again under the name of one whose
    /// deletion has not gone up yet, `creations_not_landed`).
    ///
    /// - Parameters:
    ///   - type: The record's type, of the user-created partition.
    ///   - fields: Its fields; every required field of the type must be present.
    ///   - origin: The user record of the account signed in, if any.
    ///   - name: Its name, or `nil` for the store's next one.
    ///   - body: More work for the transaction, given the record's name; what it throws rolls the insert back.
    /// - Returns: The record as stored, with its name.
    /// - Throws: ``StoreError``, as ``insert(_:fields:writtenUnder:name:)`` documents, or what `body` throws,
    ///   wrapped.
    @discardableResult
    public func insert(
        _ type: ModelType<UserCreated>, fields: [String: FieldValue], origin: UserRecordID?, name: String?,
        alongside body: (SyncTransaction, String) throws -> Void
    ) throws(StoreError) -> StoredRecord {
        let record = try newRecord(type, fields: fields, origin: origin, name: name)
        try write { connection in
            try body(SyncTransaction(connection: connection, deviceID: self.deviceID), record.name)
            try self.insertNew(record, named: name != nil, connection)
        }
        return record
    }
}

public import PrivateCloud
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A key of the sync engine's state, kept in the user-created store's `sync_state` table so that it commits with
/// the records it describes and survives a crash at any point.
public enum SyncStateKey: String, Sendable, CaseIterable {
    /// The user record name of the account this store mirrors; unset until the first sync binds it.
    case boundUser = "bound_user"
    /// 1 once the engine's zone exists in the bound account's database.
    case zoneReady = "zone_ready"
    /// The zone change token (bytes).
    case zoneToken = "zone_token"
    /// The database change token (bytes).
    case databaseToken = "database_token"
    /// 1 while a fetch from a nil token must end by deleting synced records the server no longer has.
    case reconcileOnFullFetch = "reconcile_on_full_fetch"
    /// 1 once a complete fetch has finished since the store was bound.
    case initialFetchDone = "initial_fetch_done"
    /// A pause that lasts until the user acts: `accountChanged`, `userDeletedZone`, `quotaExceeded`.
    case pauseReason = "pause_reason"
    /// 1 after the user turned sync on: a zone the user deleted may be created again and filled.
    case reuploadConsent = "reupload_consent"
    /// The outcome of the last attempt: `ok`, or the name of the CloudKit code it failed with.
    case lastOutcome = "last_outcome"
    /// A sentence describing the last failure.
    case lastError = "last_error"
    /// When the last attempt ended (seconds since 2001).
    case lastAttemptAt = "last_attempt_at"
    /// The earliest time the engine wants to run again after a failure (seconds since 2001).
    case nextAttemptAt = "next_attempt_at"
    /// Consecutive transient failures, for backoff.
    case retryAttempt = "retry_attempt"
    /// Totals since the store was created: what the engine reports, for hosts and the simulator to check. Saves
    /// the server accepted.
    case sentSaves = "sent_saves"
    /// Deletions the server accepted, since the store was created.
    case sentDeletes = "sent_deletes"
    /// Created or changed records fetched and applied, since the store was created.
    case fetchedModifications = "fetched_modifications"
    /// Deletions fetched and applied, since the store was created.
    case fetchedDeletions = "fetched_deletions"
    /// Conflicts resolved, since the store was created.
    case conflictsResolved = "conflicts_resolved"
    /// Advanced each time the store starts afresh: a cycle that began in an earlier epoch applies nothing more.
    case epoch = "epoch"
    /// The number of records per modify request the engine uses, reduced after `limitExceeded` (default 400).
    case batchSize = "batch_size"
    /// Modify requests accepted in a row at the current batch size; after enough of them the size grows back.
    case batchStreak = "batch_streak"
    /// How many deletions of the zone, counted from the kept database token, this device has learned of (a consent
    /// given now covers that many; `reupload_consent` holds how many a consent covers).
    case deletionsLearned = "deletions_learned"
    /// Set by a reset of the bookkeeping: the next full fetch queues the records the server did not return.
    case requeueOnFullFetch = "requeue_on_full_fetch"
}

/// A pending change as the engine reads it: with a revision that grows each time the record is written again, so
/// that a change written while a send was in flight is not dropped when the older send succeeds.
public struct PendingChangeRow: Sendable, Hashable {
    /// The record's name.
    public let recordName: String
    /// The record's type.
    public let recordType: String
    /// Whether the change saves or deletes the record.
    public let kind: PendingChangeKind
    /// Grows each time the record is written again while the change waits.
    public let revision: Int64
    /// The change's place in the queue.
    public let queuedSequence: Int64
    /// The user record the record was written under (for saves whose record exists), else `nil`.
    public let origin: UserRecordID?
}

/// The system fields the server last returned for a record (its change tag above all), as the engine caches them.
public struct CachedServerFields: Sendable, Hashable {
    /// The record's type.
    public let recordType: String
    /// The system fields, with the change tag the next save must carry.
    public let systemFields: SystemFields
}

extension RecordStore where Kind == UserCreated {
    /// Runs the engine's work in one transaction on the user-created store.
    ///
    /// - Parameter body: The work; everything it writes commits together, or not at all.
    /// - Returns: What `body` returns.
    /// - Throws: ``StoreError`` for a storage failure or a simulated crash, or what `body` throws, wrapped.
    public func syncTransaction<T: Sendable>(_ body: (SyncTransaction) throws -> T) throws(StoreError) -> T {
        try write { connection in try body(SyncTransaction(connection: connection, deviceID: self.deviceID)) }
    }

    /// Reads the engine's state on a consistent snapshot.
    public func syncSnapshot<T: Sendable>(_ body: (SyncTransaction) throws -> T) throws(StoreError) -> T {
        try read { connection in try body(SyncTransaction(connection: connection, deviceID: self.deviceID)) }
    }

    /// ``syncSnapshot(_:)``, or what `body` returned when it last ran under `name`, when nothing was committed to
    /// the store since (see `memoizedRead(_:_:)`): for small values computed from the store alone.
    public func syncSnapshot<T: Sendable>(
        memoizedAs name: String, _ body: (SyncTransaction) throws -> T
    ) throws(StoreError) -> T {
        try memoizedRead(name) { connection in
            try body(SyncTransaction(connection: connection, deviceID: self.deviceID))
        }
    }

    /// How many changes wait to be sent.
    public func pendingChangeCount() throws(StoreError) -> Int {
        try syncSnapshot { try $0.pendingCount() }
    }

    /// Every pending change, in queue order.
    public func pendingChanges() throws(StoreError) -> [PendingChangeRow] {
        try syncSnapshot { try $0.pendingChanges(limit: Int.max) }
    }
}

/// The user-created store, as the sync engine sees it inside one transaction.
///
/// Every method runs SQL on the transaction's connection; nothing commits until the transaction's closure returns.
public struct SyncTransaction {
    let connection: Connection
    /// The device's identifier.
    public let deviceID: String
    /// Every state value, read at once by ``readingAllState()`` for code that reads many and writes none.
    private var readState: [String: SQLiteValue]?

    init(connection: Connection, deviceID: String) {
        self.connection = connection
        self.deviceID = deviceID
    }

    // MARK: State

    /// This transaction, with every state value read in one query, for code that reads many values and writes none
    /// (the engine's state, which every status reads: `make bench`, `simulated_speedup`). Its `state(_:)` answers
    /// from what was read; it must not be used to write.
    public func readingAllState() throws -> SyncTransaction {
        var copy = self
        var values: [String: SQLiteValue] = [:]
        for (key, value) in try connection.query(
            literal: "SELECT key, value FROM sync_state WHERE value IS NOT NULL", row: { ($0.text(0), $0.value(1)) })
        {
            values[key] = value
        }
        copy.readState = values
        return copy
    }

    /// A state value, or `nil` when unset.
    package func state(_ key: SyncStateKey) throws -> SQLiteValue? {
        if let readState { return readState[key.rawValue] }
        let statement = try connection.cachedStatement(literal: "SELECT value FROM sync_state WHERE key = ?")
        defer { statement.reset() }
        try statement.bind(key.rawValue, at: 1)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.value(0)
    }

    /// Sets a state value; `nil` removes it.
    ///
    /// - Throws: ``StoreError`` `invalidValue` for a value out of the key's range (a date years away, a negative
    ///   counter), which is never written: a store must never hold what opening it would refuse.
    package func setState(_ key: SyncStateKey, _ value: SQLiteValue?) throws {
        if let value {
            if let shape = StoreStateCheck.shape(of: key.rawValue),
                let problem = StoreStateCheck.problem(with: value, shape: shape)
            {
                throw StoreError(.invalidValue, "refused to save sync state \(key.rawValue), which \(problem)")
            }
            try connection.run(
                literal:
                    "INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                .text(key.rawValue), value)
        } else {
            try connection.run(literal: "DELETE FROM sync_state WHERE key = ?", .text(key.rawValue))
        }
    }

    /// An integer state value, 0 when unset.
    public func integer(_ key: SyncStateKey) throws -> Int64 {
        if case .integer(let value)? = try state(key) { return value }
        return 0
    }

    /// A text state value.
    public func text(_ key: SyncStateKey) throws -> String? {
        if case .text(let value)? = try state(key) { return value }
        return nil
    }

    /// A date state value (stored as seconds since 2001).
    ///
    /// - Throws: ``StoreError`` `damagedFile` for a date out of range, which no arithmetic may meet.
    public func date(_ key: SyncStateKey) throws -> Date? {
        let seconds: Double
        switch try state(key) {
        case .real(let value)?: seconds = value
        case .integer(let value)?: seconds = Double(value)
        default: return nil
        }
        if let problem = StoreStateCheck.dateProblem(seconds) {
            throw StoreError(
                .damagedFile,
                "\(connection.path) is damaged: sync_state \(key.rawValue) \(problem); it was left unchanged")
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Bytes of a state value.
    public func bytes(_ key: SyncStateKey) throws -> [UInt8]? {
        if case .blob(let value)? = try state(key) { return value }
        return nil
    }

    /// Adds to a counter.
    public func add(_ amount: Int, to key: SyncStateKey) throws {
        guard amount != 0 else { return }
        let (sum, overflow) = try integer(key).addingReportingOverflow(Int64(amount))
        guard !overflow else {
            throw StoreError(.damagedFile, "\(connection.path): sync_state \(key.rawValue) would overflow")
        }
        try setState(key, .integer(sum))
    }

    // MARK: Records

    /// The record of that name, if any.
    public func record(named name: String) throws -> StoredRecord? {
        try RecordStore<UserCreated>.record(named: name, connection)
    }

    /// Which of `names` this store knows: the names of its records and of its pending changes, among them.
    ///
    /// One query for a whole page of fetched changes, so that a name the store has never seen (every name, in an
    /// initial sync) costs no look-up of its own (`make bench`, `initial_sync_ratio`).
    public func knownNames(among names: [String]) throws -> Set<String> {
        guard !names.isEmpty else { return [] }
        var estimate = 2
        for name in names { estimate += name.utf8.count + 3 }
        let list = FieldsWriter.bytes(estimate: estimate) { writer in
            writer.append(UInt8(ascii: "["))
            for index in names.indices {
                if index > 0 { writer.append(UInt8(ascii: ",")) }
                writer.write(string: names[index])
            }
            writer.append(UInt8(ascii: "]"))
        }
        let statement = try connection.cachedStatement(
            literal: """
                SELECT value FROM json_each(?1)
                WHERE value IN (SELECT record_name FROM records) OR value IN (SELECT record_name FROM pending_changes)
                """)
        defer { statement.reset() }
        try statement.bindText(list, at: 1)
        var known = Set<String>()
        while try statement.step() { known.insert(statement.text(0)) }
        return known
    }

    /// The server fields cached for a record, if it was ever confirmed by the server.
    public func serverFields(of name: String) throws -> CachedServerFields? {
        try connection.query(
            literal: """
                SELECT record_type, server_change_tag, server_created_at, server_modified_at, server_creator,
                    server_last_modifier
                FROM records WHERE record_name = ? AND server_change_tag IS NOT NULL
                """, .text(name)
        ) { row in
            CachedServerFields(
                recordType: row.text(0),
                systemFields: SystemFields(
                    changeTag: row.text(1), creationDate: Date(timeIntervalSinceReferenceDate: row.double(2)),
                    modificationDate: Date(timeIntervalSinceReferenceDate: row.double(3)),
                    creatorUserRecordID: UserRecordID(recordName: row.text(4)),
                    lastModifiedUserRecordID: UserRecordID(recordName: row.text(5))))
        }.first
    }

    /// The change tag cached for a record, if any.
    public func serverChangeTag(of name: String) throws -> String? {
        try connection.scalarText(literal: "SELECT server_change_tag FROM records WHERE record_name = ?", .text(name))
    }

    /// Writes a record as the server has it (or as merged), with the server fields it is now based on. Queues
    /// nothing: the caller decides whether the merged record must be sent.
    public func putRecord(_ record: StoredRecord, serverFields: SystemFields?) throws {
        let statement = try connection.cachedStatement(
            literal: """
                INSERT INTO records (record_name, record_type, fields, field_versions, origin_user, created_at,
                    modified_at, server_change_tag, server_created_at, server_modified_at, server_creator,
                    server_last_modifier)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                ON CONFLICT (record_name) DO UPDATE SET fields = excluded.fields, field_versions = excluded.field_versions,
                    created_at = excluded.created_at, modified_at = excluded.modified_at, origin_user = COALESCE(origin_user, excluded.origin_user),
                    server_change_tag = excluded.server_change_tag, server_created_at = excluded.server_created_at,
                    server_modified_at = excluded.server_modified_at, server_creator = excluded.server_creator,
                    server_last_modifier = excluded.server_last_modifier
                """)
        try statement.bind(record.name, at: 1)
        try statement.bind(record.type, at: 2)
        try statement.bindText(FieldsJSON.encode(record.fields), at: 3)
        try statement.bindText(record.fieldVersions.encodedBytes, at: 4)
        try statement.bind(record.origin?.recordName, at: 5)
        try statement.bind(record.createdAt.timeIntervalSinceReferenceDate, at: 6)
        try statement.bind(record.modifiedAt.timeIntervalSinceReferenceDate, at: 7)
        try statement.bind(serverFields?.changeTag, at: 8)
        try statement.bind(serverFields?.creationDate.timeIntervalSinceReferenceDate, at: 9)
        try statement.bind(serverFields?.modificationDate.timeIntervalSinceReferenceDate, at: 10)
        try statement.bind(serverFields?.creatorUserRecordID.recordName, at: 11)
        try statement.bind(serverFields?.lastModifiedUserRecordID.recordName, at: 12)
        try statement.run()
    }

    /// Records the server fields a save returned, leaving the record's fields as they are.
    public func setServerFields(_ fields: SystemFields, of name: String) throws {
        try connection.run(
            literal: """
                UPDATE records SET server_change_tag = ?, server_created_at = ?, server_modified_at = ?, server_creator = ?,
                    server_last_modifier = ?
                WHERE record_name = ?
                """,
            .text(fields.changeTag), .real(fields.creationDate.timeIntervalSinceReferenceDate),
            .real(fields.modificationDate.timeIntervalSinceReferenceDate), .text(fields.creatorUserRecordID.recordName),
            .text(fields.lastModifiedUserRecordID.recordName), .text(name))
    }

    /// Deletes a record (without queuing a change: the server already lost it, or never had it).
    public func deleteRecord(named name: String) throws {
        try connection.run(literal: "DELETE FROM records WHERE record_name = ?", .text(name))
    }

    // MARK: Pending changes

    private static func pendingRow(_ row: Statement) -> PendingChangeRow {
        PendingChangeRow(
            recordName: row.text(0), recordType: row.text(1), kind: PendingChangeKind(rawValue: row.text(2)) ?? .save,
            revision: row.int64(3), queuedSequence: row.int64(4),
            origin: row.optionalText(5).map(UserRecordID.init(recordName:)))
    }

    /// Pending changes in queue order, after the queue position `sequence`.
    public func pendingChanges(after sequence: Int64 = 0, limit: Int) throws -> [PendingChangeRow] {
        try connection.query(
            literal: """
                SELECT p.record_name, p.record_type, p.kind, p.revision, p.queued_seq, r.origin_user
                FROM pending_changes p LEFT JOIN records r ON r.record_name = p.record_name
                WHERE p.queued_seq > ? ORDER BY p.queued_seq LIMIT ?
                """, .integer(sequence),
            .integer(Int64(min(limit, Int(Int64.max)))), row: Self.pendingRow)
    }

    /// The pending change of a record, if any.
    public func pendingChange(named name: String) throws -> PendingChangeRow? {
        try connection.query(
            literal: """
                SELECT p.record_name, p.record_type, p.kind, p.revision, p.queued_seq, r.origin_user
                FROM pending_changes p LEFT JOIN records r ON r.record_name = p.record_name
                WHERE p.record_name = ?
                """, .text(name), row: Self.pendingRow
        ).first
    }

    /// How many changes wait that may go to `user`'s container: deletes, and saves of records written under
    /// `user` or under no account. Changes written under another account wait for that account and are not
    /// counted. With no user bound yet, every change counts.
    public func sendablePendingCount(for user: UserRecordID?) throws -> Int {
        guard let user else { return try pendingCount() }
        return Int(
            try connection.scalarInt(
                literal: """
                    SELECT count(*) FROM pending_changes p LEFT JOIN records r ON r.record_name = p.record_name
                    WHERE p.kind = 'delete' OR r.origin_user IS NULL OR r.origin_user = ?
                    """, .text(user.recordName)) ?? 0)
    }

    /// Gives a record written with no account to `user`, as it is about to go to `user`'s container.
    public func adoptRecord(named name: String, as user: UserRecordID) throws {
        try connection.run(
            literal: "UPDATE records SET origin_user = ? WHERE record_name = ? AND origin_user IS NULL",
            .text(user.recordName),
            .text(name))
    }

    /// How many changes wait.
    public func pendingCount() throws -> Int {
        Int(try connection.scalarInt(literal: "SELECT count(*) FROM pending_changes") ?? 0)
    }

    /// Removes a pending change, only if it was not queued again since `revision` was read.
    ///
    /// - Returns: Whether it was removed.
    @discardableResult
    public func removePendingChange(named name: String, ifRevision revision: Int64?) throws -> Bool {
        if let revision {
            try connection.run(
                literal: "DELETE FROM pending_changes WHERE record_name = ? AND revision = ?", .text(name),
                .integer(revision))
        } else {
            try connection.run(literal: "DELETE FROM pending_changes WHERE record_name = ?", .text(name))
        }
        return connection.changes > 0
    }

    /// Queues a change (collapsing with any queued for the same record).
    public func queue(_ kind: PendingChangeKind, name: String, type: String) throws {
        try RecordStore<UserCreated>.queue(kind, name: name, type: type, connection)
    }

    // MARK: Whole-store operations

    /// Gives every record written with no account signed in to `user`, as the account the store now mirrors.
    public func adoptUnownedRecords(as user: UserRecordID) throws {
        try connection.run(
            literal: "UPDATE records SET origin_user = ? WHERE origin_user IS NULL", .text(user.recordName))
    }

    /// Forgets everything learned from the server (change tags, tokens) and queues every record that may go to
    /// `user` to be saved again: what a re-upload after the user deleted the app's iCloud data needs.
    public func queueEverythingForUpload(to user: UserRecordID?) throws {
        try connection.run(
            literal: """
                UPDATE records SET server_change_tag = NULL, server_created_at = NULL, server_modified_at = NULL,
                    server_creator = NULL, server_last_modifier = NULL
                """)
        try connection.run(
            """
            INSERT INTO pending_changes (record_name, record_type, kind, queued_seq, revision)
            SELECT record_name, record_type, 'save',
                COALESCE((SELECT max(queued_seq) FROM pending_changes), 0) + row_number() OVER (ORDER BY created_at, record_name),
                \(RecordStore<UserCreated>.nextRevision)
            FROM records WHERE origin_user IS NULL OR origin_user = ?1
            ON CONFLICT (record_name) DO UPDATE SET kind = 'save', revision = \(RecordStore<UserCreated>.nextRevision)
            """, .text(user?.recordName ?? ""))
    }

    /// Forgets every server version the store cached (change tags, server dates), keeping the records.
    public func clearServerFields() throws {
        try connection.run(
            literal: """
                UPDATE records SET server_change_tag = NULL, server_created_at = NULL, server_modified_at = NULL,
                    server_creator = NULL, server_last_modifier = NULL
                """)
    }

    /// After a full fetch that followed a reset of the engine's bookkeeping: queues for saving every record of
    /// `user` (or of no account) that the fetch did not return and that waits for nothing, so that a record the
    /// server lacks is sent rather than lost. Returns their names.
    public func queueRecordsNotSeen(for user: UserRecordID) throws -> [String] {
        let rows = try connection.query(
            literal: """
                SELECT record_name, record_type FROM records WHERE (origin_user IS NULL OR origin_user = ?)
                    AND record_name NOT IN (SELECT record_name FROM refetch_seen)
                    AND record_name NOT IN (SELECT record_name FROM pending_changes)
                ORDER BY created_at, record_name
                """, .text(user.recordName)
        ) { ($0.text(0), $0.text(1)) }
        for (name, type) in rows { try queue(.save, name: name, type: type) }
        try connection.run(literal: "DELETE FROM refetch_seen")
        return rows.map(\.0)
    }

    /// Deletes the records written under `user` and their pending changes (after they were archived).
    public func removeRecords(of user: UserRecordID) throws {
        try connection.run(
            literal:
                "DELETE FROM pending_changes WHERE record_name IN (SELECT record_name FROM records WHERE origin_user = ?)",
            .text(user.recordName))
        try connection.run(
            literal: """
                DELETE FROM pending_changes WHERE kind = 'delete'
                    AND record_name NOT IN (SELECT record_name FROM records)
                """)
        try connection.run(literal: "DELETE FROM records WHERE origin_user = ?", .text(user.recordName))
    }

    /// Whether any record of `user` was ever confirmed by `user`'s container.
    public func hasSyncedRecords(of user: UserRecordID) throws -> Bool {
        try connection.scalarInt(
            literal: "SELECT 1 FROM records WHERE server_change_tag IS NOT NULL AND origin_user = ? LIMIT 1",
            .text(user.recordName))
            != nil
    }

    /// Starts remembering which records a full fetch returns.
    public func clearSeenRecords() throws {
        try connection.run(literal: "DELETE FROM refetch_seen")
    }

    /// Remembers that a full fetch returned `name`.
    public func markSeen(_ name: String) throws {
        try connection.run(literal: "INSERT OR IGNORE INTO refetch_seen (record_name) VALUES (?)", .text(name))
    }

    /// After a full fetch: deletes records the server confirmed once but did not return, unless they wait to be
    /// saved without a server version (which the engine resolves); returns their names.
    ///
    /// Only records of `user` are considered: a full fetch of `user`'s container says nothing about records that
    /// belong to another account (restored from an archive, say), whatever their change tags.
    public func deleteSyncedRecordsNotSeen(of user: UserRecordID) throws -> [String] {
        let names = try connection.query(
            literal: """
                SELECT record_name FROM records WHERE server_change_tag IS NOT NULL AND origin_user = ?
                    AND record_name NOT IN (SELECT record_name FROM refetch_seen)
                """, .text(user.recordName)
        ) { $0.text(0) }
        for name in names {
            try connection.run(literal: "DELETE FROM records WHERE record_name = ?", .text(name))
            try connection.run(literal: "DELETE FROM pending_changes WHERE record_name = ?", .text(name))
        }
        try connection.run(literal: "DELETE FROM refetch_seen")
        return names
    }
}

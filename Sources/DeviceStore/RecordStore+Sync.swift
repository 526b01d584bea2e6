public import PrivateCloud
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// The records no server ever confirmed (they carry no change tag) and no pending change will send, in name
    /// order: records that would never leave the device. A store's writes queue the change in the record's own
    /// transaction, so a crash can never leave one; the simulator checks it after every crash.
    public func unqueuedUnconfirmedNames() throws(StoreError) -> [String] {
        try read { connection in
            try connection.query(
                literal: """
                    SELECT record_name FROM records WHERE server_change_tag IS NULL
                        AND record_name NOT IN (SELECT record_name FROM pending_changes) ORDER BY record_name
                    """
            ) { $0.text(0) }
        }
    }
}

/// The user-created store, as the sync engine sees it inside one transaction.
///
/// Every method runs SQL on the transaction's connection; nothing commits until the transaction's closure returns.
public struct SyncTransaction {
    let connection: Connection
    /// The device's identifier.
    public let deviceID: String
    init(connection: Connection, deviceID: String) {
        self.connection = connection
        self.deviceID = deviceID
    }

    // MARK: The engine's state

    /// The path of the store file, for messages that name it.
    package var storePath: String { connection.path }

    /// Every value of the sync engine's state, by key, in one query: the engine reads its whole state in each
    /// transaction, and every status reads it (`make bench`, `simulated_speedup`). The store's own
    /// `pending_revision` counter is not among them.
    ///
    /// The store knows the values by key and shape only (for its range check); what they mean is the engine's.
    ///
    /// - Returns: The value of every key that is set.
    /// - Throws: ``StoreError`` `damagedFile`, naming the store, for an unknown key or a value out of its key's range
    ///   (what opening the store refuses, written since by another process or by hand), or when the store cannot be
    ///   read.
    package func syncStateValues() throws -> [String: SyncStateValue] {
        let statement = try connection.cachedStatement(
            literal: "SELECT key, value FROM sync_state WHERE value IS NOT NULL AND key <> 'pending_revision'")
        defer { statement.reset() }
        // Sized for every key at once: the state is read at every status and every cycle, and growing the
        // dictionary key by key rehashed it five times.
        var values = [String: SyncStateValue](minimumCapacity: StoreStateCheck.engineShapes.count)
        while try statement.step() {
            let key = statement.text(0)
            let raw = statement.value(1)
            let problem =
                StoreStateCheck.engineShapes[key].map { StoreStateCheck.problem(with: raw, shape: $0) }
                ?? "is no key of the engine's state"
            if let problem {
                throw StoreError(
                    .damagedFile,
                    "\(connection.path) is damaged: sync_state \(key.prefix(40)) \(problem); it was left unchanged")
            }
            values[key] = SyncStateValue(raw)
        }
        return values
    }

    /// Writes values of the sync engine's state, in this transaction: a value sets its key, `nil` removes it.
    ///
    /// - Parameter changes: The keys to write, each with its new value.
    /// - Throws: ``StoreError`` `invalidValue` for a key that is no key of the engine's state, or a value out of its
    ///   key's range (a date years away, a negative counter), which is never written: a store must never hold what
    ///   opening it would refuse. Or ``StoreError`` when the store cannot be written.
    package func writeSyncState(_ changes: [(key: String, value: SyncStateValue?)]) throws {
        for (key, value) in changes {
            guard let shape = StoreStateCheck.engineShapes[key] else {
                throw StoreError(
                    .invalidValue, "refused to save sync state \(key), which is no key of the engine's state")
            }
            guard let value else {
                try connection.run(literal: "DELETE FROM sync_state WHERE key = ?", .text(key))
                continue
            }
            let raw = value.sqliteValue
            if let problem = StoreStateCheck.problem(with: raw, shape: shape) {
                throw StoreError(.invalidValue, "refused to save sync state \(key), which \(problem)")
            }
            try connection.run(
                literal:
                    "INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                .text(key), raw)
        }
    }

    // MARK: Records

    /// The record of that name, if any.
    public func record(named name: String) throws -> StoredRecord? {
        try RecordStore<UserCreated>.record(named: name, connection)
    }

    /// Whether the store holds a record of that name, its fields (up to 1 MB of JSON) not read.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: Whether a record of that name is here.
    /// - Throws: `SQLiteError` when the store cannot be read.
    public func containsRecord(named name: String) throws -> Bool {
        try RecordStore<UserCreated>.holdsRecord(named: name, connection)
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
        try RecordStore<UserCreated>.checkStorable(record, serverFields: serverFields)
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
        try RecordStore<UserCreated>.bindRecordColumns(record, to: statement)
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
    ///
    /// - Parameters:
    ///   - user: The account.
    ///   - deletesThrough: The last revision of a pending delete that went into the archive with them; `nil` for
    ///     every delete whose record is gone.
    public func removeRecords(of user: UserRecordID, deletesThrough: Int64? = nil) throws {
        try connection.run(
            literal:
                "DELETE FROM pending_changes WHERE record_name IN (SELECT record_name FROM records WHERE origin_user = ?)",
            .text(user.recordName))
        try connection.run(
            literal: """
                DELETE FROM pending_changes WHERE kind = 'delete'
                    AND record_name NOT IN (SELECT record_name FROM records) AND revision <= ?
                """, .integer(deletesThrough ?? Int64.max))
        try connection.run(literal: "DELETE FROM records WHERE origin_user = ?", .text(user.recordName))
    }

    /// The last revision the store handed out to a pending change: every later write of a change gets a greater one
    /// (the counter `pending_revision` holds the next).
    ///
    /// - Returns: The last revision.
    /// - Throws: `SQLiteError` when the store cannot be read.
    public func lastRevision() throws -> Int64 {
        (try connection.scalarInt(literal: "SELECT value FROM sync_state WHERE key = 'pending_revision'") ?? 1) - 1
    }

    /// Deletes every record and every pending change: what an app does with the data of an account the device left.
    ///
    /// - Throws: `SQLiteError` when the store cannot be written.
    public func removeAllRecords() throws {
        try connection.execute(
            """
            DELETE FROM records;
            DELETE FROM pending_changes;
            DELETE FROM refetch_seen
            """)
    }

    /// The names of every record.
    ///
    /// - Returns: The names.
    /// - Throws: `SQLiteError` when the store cannot be read.
    public func recordNames() throws -> Set<String> {
        Set(try connection.query(literal: "SELECT record_name FROM records") { $0.text(0) })
    }

    /// Drops every unsent delete.
    ///
    /// - Throws: `SQLiteError` when the store cannot be written.
    public func removePendingDeletes() throws {
        try connection.run(literal: "DELETE FROM pending_changes WHERE kind = 'delete'")
    }

    /// Queues a save of every record of `user` (or of no account) that no server confirmed and no change waits for,
    /// in creation order: what a device uploads when it signs into an account, or after an encrypted-data reset
    /// cleared the change tags. A record the server confirmed is there already (or its deletion comes in a fetch);
    /// a record of another account never goes to this one.
    ///
    /// - Parameter user: The account signed in.
    /// - Returns: The names queued.
    /// - Throws: `SQLiteError` when the store cannot be written.
    @discardableResult
    public func queueUnconfirmedRecords(of user: UserRecordID) throws -> [String] {
        let rows = try connection.query(
            literal: """
                SELECT record_name, record_type FROM records
                    WHERE server_change_tag IS NULL AND (origin_user IS NULL OR origin_user = ?)
                        AND record_name NOT IN (SELECT record_name FROM pending_changes)
                ORDER BY created_at, record_name
                """, .text(user.recordName)
        ) { ($0.text(0), $0.text(1)) }
        for (name, type) in rows { try queue(.save, name: name, type: type) }
        return rows.map(\.0)
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

    /// After a full fetch: deletes records the server confirmed once but did not return, unless a save of them
    /// waits to be sent (an acknowledged edit: its send learns from the server whether the record is gone,
    /// `unknownItem`, or only came late, as a delayed delivery makes a full fetch miss it); returns their names.
    ///
    /// Only records of `user` are considered: a full fetch of `user`'s container says nothing about records that
    /// belong to another account (restored from an archive, say), whatever their change tags. With `user` `nil`,
    /// every record is: a store that holds one account's records only (the partition mirror deletes the others').
    public func deleteSyncedRecordsNotSeen(of user: UserRecordID?) throws -> [String] {
        let names = try connection.query(
            literal: """
                SELECT record_name FROM records WHERE server_change_tag IS NOT NULL
                    AND (?1 IS NULL OR origin_user = ?1)
                    AND record_name NOT IN (SELECT record_name FROM refetch_seen)
                    AND record_name NOT IN (SELECT record_name FROM pending_changes WHERE kind = 'save')
                """, user.map { .text($0.recordName) } ?? .null
        ) { $0.text(0) }
        for name in names {
            try connection.run(literal: "DELETE FROM records WHERE record_name = ?", .text(name))
            try connection.run(literal: "DELETE FROM pending_changes WHERE record_name = ?", .text(name))
        }
        try connection.run(literal: "DELETE FROM refetch_seen")
        return names
    }
}

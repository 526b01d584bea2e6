public import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension RecordStore {
    /// Writes a copy of the whole store, as last committed, into a new file: SQLite makes it (`VACUUM INTO`), so no
    /// other code opens the store's file, its `-wal` or its `-shm` while a connection to them may exist.
    ///
    /// What a test keeps of a device at the instant it "crashes" (a delegate sweep's next launch starts from the
    /// copy), or a backup.
    ///
    /// - Parameter path: The copy; it must not exist.
    /// - Throws: ``StoreError`` when the copy cannot be made (a file already at `path` among the causes); the store
    ///   is not changed either way.
    public func copy(to path: String) throws(StoreError) {
        guard !FileSystem.exists(path) else {
            throw StoreError(.storage, "cannot copy \(self.path) to \(path): a file is already there")
        }
        do {
            // Opened for writing (nothing is written), so that it can read a WAL file whose -shm another connection
            // created; closed once the copy is made.
            try Connection(path: database.path, mode: .readWrite).run("VACUUM INTO ?", .text(path))
        } catch {
            throw StoreError.from(error, store: self.path)
        }
    }
}

extension RecordStore where Kind == UserCreated {
    /// Copies the records written under `user` into a new store file at `path`, with their unsent changes (and
    /// every unsent delete, whose record is gone and cannot be attributed), and no sync state: the data of an
    /// account the device no longer syncs with, kept apart until the device syncs with that account again.
    ///
    /// The copy is built under a temporary name and renamed into place, so `path` holds a whole archive or none. The
    /// caller makes sure no one else writes or reads archives at `path` meanwhile (LaunchedApp's start-fresh holds
    /// the lock of the archives' folder): the temporary name is the archive's own.
    ///
    /// The copy is read through a connection of its own (SQLite copies a database only outside a transaction), so
    /// it may be made inside ``syncTransaction(_:)``: it then holds what was last committed, which is what that
    /// transaction sees as long as it has written nothing yet, and no other writer can change it meanwhile.
    ///
    /// - Parameters:
    ///   - user: The account whose records to keep.
    ///   - path: The archive file; it must not exist.
    ///   - deletesThrough: The last revision of a pending delete that goes with the records (the store's revision
    ///     counter when the data left `user`: a delete written since is the next account's); `nil` for every delete.
    /// - Returns: How many records the archive holds.
    /// - Throws: ``StoreError`` when the copy cannot be made; the active store is not changed either way.
    @discardableResult
    public func archiveRecords(
        of user: UserRecordID, to path: String, deletesThrough: Int64? = nil
    ) throws(StoreError) -> Int {
        let temporary = path + ".partial"
        do {
            try FileSystem.removeItem(temporary)
            try copy(to: temporary)
            // The copy's connection is closed before the copy is moved: a file is never renamed under SQLite.
            let count = try Self.pruneArchive(at: temporary, keeping: user, deletesThrough: deletesThrough)
            try FileSystem.move(temporary, to: path)
            return count
        } catch {
            try? FileSystem.removeItem(temporary)
            throw StoreError.from(error, store: path)
        }
    }

    /// Keeps only `user`'s records (and the unsent changes that go with them) in a fresh copy of this store.
    ///
    /// - Returns: How many records the copy holds.
    /// - Throws: ``SQLiteError`` when the copy cannot be changed.
    private static func pruneArchive(
        at temporary: String, keeping user: UserRecordID, deletesThrough: Int64?
    ) throws -> Int {
        let archive = try Connection(path: temporary, mode: .readWrite)
        try archive.transaction {
            try archive.run(
                "DELETE FROM records WHERE origin_user IS NOT ? OR origin_user IS NULL", .text(user.recordName))
            if let deletesThrough {
                try archive.run(
                    "DELETE FROM pending_changes WHERE kind = 'delete' AND revision > ?", .integer(deletesThrough))
            }
            try archive.execute(
                """
                DELETE FROM pending_changes WHERE kind = 'save' AND record_name NOT IN (SELECT record_name FROM records);
                DELETE FROM sync_state
                    WHERE key NOT IN ('pending_revision', 'database_token', 'zone_token', 'zone_ready');
                DELETE FROM refetch_seen
                """)
            try archive.run(
                "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('archived_user', ?)", .text(user.recordName)
            )
            // Its identity: the store that takes it back records it in the restoring transaction, so an archive a
            // crash left behind after its restore committed is recognised and never restored twice.
            try archive.run(
                "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('archive_id', ?)", .text(UUID().uuidString))
        }
        let count = Int(try archive.scalarInt("SELECT count(*) FROM records") ?? 0)
        try archive.execute("PRAGMA journal_mode = WAL")
        return count
    }

    /// Brings the records of an archive back into this store, for when the device syncs again with the account
    /// they were written under: records this store lacks are put back with the server state they had, and their
    /// unsent changes are queued again. A name this store holds a record or a change of is left as it is: that was
    /// written after the archive was made, so the archive's record and change of it are older.
    ///
    /// - Parameter path: An archive written by ``archiveRecords(of:to:deletesThrough:)``.
    /// - Returns: How many records came back.
    /// - Throws: ``StoreError`` when the archive cannot be read; this store is then unchanged.
    @discardableResult
    public func restoreArchive(at path: String) throws(StoreError) -> Int {
        let archived: [(StoredRecord, CachedServerFields?)]
        let pending: [PendingChangeRow]
        let resumed: ArchivedSyncPosition?
        let identity: String?
        do {
            let archive = try DatabaseFile.open(
                at: path, format: Self.format, create: false, readOnly: true, verifyIntegrity: true)
            let reader = SyncTransaction(connection: archive, deviceID: deviceID)
            (archived, pending, resumed, identity) = try archive.transaction(.deferred) {
                let records = try archive.query(
                    "SELECT \(Self.recordColumns) FROM records", decoding: Self.storedRecord)
                let user = try archive.scalarText("SELECT value FROM store_meta WHERE key = 'archived_user'")
                let position = try ArchivedSyncPosition.read(from: archive)
                // Bound to its account even with no change token (the account never answered a fetch): the
                // binding commits with the restored records, so no crash leaves them in a store bound to no one,
                // which the next cycle could bind to whoever is signed in then (seed 259 of a 300-seed run at 2e9c704:
                // a restore at the binding committed, the binding was killed).
                let resumption = user.map { user in
                    ArchivedSyncPosition(
                        user: user, databaseToken: position.databaseToken, zoneToken: position.zoneToken,
                        zoneReady: position.zoneReady)
                }
                return (
                    try records.map { ($0, try reader.serverFields(of: $0.name)) },
                    try reader.pendingChanges(limit: Int.max), resumption,
                    try archive.scalarText("SELECT value FROM store_meta WHERE key = 'archive_id'")
                )
            }
        } catch {
            throw StoreError.from(error, store: path)
        }
        return try syncTransaction { state in
            if let identity {
                let marker = SQLiteValue.text("restored_archive.\(identity)")
                // Restored already, committed; a crash came before the file was removed. Restored again, its older
                // copies would bring back what the user deleted since.
                if try state.connection.scalarInt("SELECT 1 FROM store_meta WHERE key = ?", marker) != nil { return 0 }
                try state.connection.run("INSERT INTO store_meta (key, value) VALUES (?, 1)", marker)
            }
            // Whatever this store holds of a name, a record or a change, was written after the archive was made: the
            // start-fresh that made it removed the name's record and changes from here. The newer state wins, so
            // neither the archived record nor its archived change comes back over it (an archived delete queued over
            // a record created again under its name cancelled the new record's save, which then never reached
            // iCloud: the sweep at 2326e39, seeds 1137 and 2035).
            let newer = try state.knownNames(among: archived.map(\.0.name) + pending.map(\.recordName))
            var restored = 0
            for (record, server) in archived where !newer.contains(record.name) {
                try state.putRecord(record, serverFields: server?.systemFields)
                restored += 1
            }
            for change in pending where !newer.contains(change.recordName) {
                try state.queue(change.kind, name: change.recordName, type: change.recordType)
            }
            // A store that has just started afresh resumes the archived account where this device left it: bound to
            // it, with its change tokens, so the next cycle learns what changed since (a deletion of the app's data
            // pauses for consent; records deleted elsewhere go) instead of a full fetch that would take the restored
            // records, confirmed by that account's server once, for deleted ones.
            if let resumed {
                let current = try state.syncStateValues()
                if current[SyncStateKey.databaseToken.rawValue] == nil
                    && current[SyncStateKey.boundUser.rawValue] == nil
                {
                    try state.writeSyncState(resumed.stateValues)
                }
            }
            return restored
        }
    }

    /// The records of `user` an archive holds, as ``SyncTransaction/archivableRows(of:)`` reads them from the
    /// active store: the two compare equal exactly when the archive holds what the store holds of `user` now.
    ///
    /// - Parameters:
    ///   - user: The account whose records to read.
    ///   - path: An archive written by ``archiveRecords(of:to:deletesThrough:)``.
    /// - Returns: One row per record, in name order.
    /// - Throws: ``StoreError`` when the archive cannot be read.
    public func archivedRows(of user: UserRecordID, at path: String) throws(StoreError) -> ArchivableRows {
        do {
            // Opened for writing (nothing is written), so that closing it removes the -wal and -shm it needed.
            let archive = try DatabaseFile.open(at: path, format: Self.format, create: false, verifyIntegrity: true)
            return try archive.transaction(.deferred) { try ArchivableRows.read(of: user, archive) }
        } catch {
            throw StoreError.from(error, store: path)
        }
    }

    /// Removes a restored archive with its `-wal` and `-shm`: its records are in this store now, committed durably.
    ///
    /// - Parameter path: The archive.
    /// - Throws: ``StoreError`` when a file cannot be removed.
    public func removeRestoredArchive(at path: String) throws(StoreError) {
        do {
            // The main file last: while it exists, a crash here leaves an archive that restores again, harmlessly
            // (records this store has are left as they are).
            try FileSystem.removeItem(path + "-wal")
            try FileSystem.removeItem(path + "-shm")
            try FileSystem.removeItem(path)
            FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
        } catch {
            throw StoreError(.storage, "cannot remove the restored archive \(path)", underlying: error)
        }
    }
}

/// Where an archived account's sync stood when its records were archived: the account and its change tokens
/// (archives written before tokens were kept have none).
///
/// These few keys of the engine's state are the store's to carry: an archive keeps them (``RecordStore/archiveRecords(of:to:deletesThrough:)``
/// deletes every other) and a store that has just started afresh takes them back. Their names are
/// ``SyncStateKey``'s, as existing store files hold them.
private struct ArchivedSyncPosition: Sendable {
    let user: String?
    let databaseToken: [UInt8]?
    let zoneToken: [UInt8]?
    let zoneReady: Bool

    /// The position an archive holds (its account is in `store_meta`, not here). A value of another type than the
    /// engine writes is read as unset, as it always was: an archive is taken back as far as it can be.
    ///
    /// - Parameter archive: The archive, in a transaction.
    /// - Returns: The tokens and the zone flag, with no user.
    /// - Throws: ``SQLiteError`` when the archive cannot be read.
    static func read(from archive: Connection) throws -> ArchivedSyncPosition {
        var databaseToken: [UInt8]?
        var zoneToken: [UInt8]?
        var zoneReady = false
        let rows = try archive.query(
            "SELECT key, value FROM sync_state WHERE key IN (?, ?, ?)", .text(SyncStateKey.databaseToken.rawValue),
            .text(SyncStateKey.zoneToken.rawValue),
            .text(SyncStateKey.zoneReady.rawValue)
        ) { ($0.text(0), $0.value(1)) }
        for (key, value) in rows {
            switch (key, value) {
            case (SyncStateKey.databaseToken.rawValue, .blob(let bytes)): databaseToken = bytes
            case (SyncStateKey.zoneToken.rawValue, .blob(let bytes)): zoneToken = bytes
            case (SyncStateKey.zoneReady.rawValue, .integer(let flag)): zoneReady = flag == 1
            default: break
            }
        }
        return ArchivedSyncPosition(user: nil, databaseToken: databaseToken, zoneToken: zoneToken, zoneReady: zoneReady)
    }

    /// The values that resume this position in a store's engine state.
    var stateValues: [(key: String, value: SyncStateValue?)] {
        [
            (SyncStateKey.boundUser.rawValue, user.map { .text($0) }),
            (SyncStateKey.databaseToken.rawValue, databaseToken.map { .bytes($0) }),
            (SyncStateKey.zoneToken.rawValue, zoneToken.map { .bytes($0) }),
            (SyncStateKey.zoneReady.rawValue, zoneReady ? .integer(1) : nil),
        ]
    }
}

/// The records of one account a store holds, as an archive of them must hold them: their names, modification times
/// and fields, in name order. An archive whose rows equal the active store's, read in the transaction that removes
/// them, lost nothing written meanwhile.
public struct ArchivableRows: Sendable, Equatable {
    let rows: [[SQLiteValue]]

    /// How many records.
    public var count: Int { rows.count }

    /// Reads the rows of `user`'s records from a store open on `connection`, in a transaction.
    static func read(of user: UserRecordID, _ connection: Connection) throws -> ArchivableRows {
        ArchivableRows(
            rows: try connection.query(
                "SELECT record_name, modified_at, fields FROM records WHERE origin_user = ? ORDER BY record_name",
                .text(user.recordName)
            ) { [$0.value(0), $0.value(1), $0.value(2)] })
    }
}

extension SyncTransaction {
    /// The rows of `user`'s records, to compare with an archive of them (``RecordStore/archivedRows(of:at:)``).
    ///
    /// - Parameter user: The account.
    /// - Returns: One row per record, in name order.
    /// - Throws: `SQLiteError` when the store cannot be read.
    public func archivableRows(of user: UserRecordID) throws -> ArchivableRows {
        try ArchivableRows.read(of: user, connection)
    }
}

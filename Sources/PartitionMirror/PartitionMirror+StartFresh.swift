import DeviceStore
import PrivateSyncEngine
import PrivateSyncFileSystem

extension PartitionMirror {
    /// The folder the mirror keeps other accounts' data in, beside the store: `Archives`, one SQLite file per start
    /// afresh (``startFreshForSignedInAccount()``).
    public nonisolated var archivesFolder: String {
        FileSystem.parentDirectory(of: store.path) + "/Archives"
    }

    /// After another account signed in (sync paused, `accountChanged`), the user chooses to sync with it: the data's
    /// account's records go into an archive beside the store, and the store starts afresh with the account signed
    /// in. What was written under that account, or under none, stays and goes up to it; what this device archived
    /// for that account earlier, when it started afresh for another, comes back. Nothing is deleted anywhere, and
    /// nothing of the previous account ever reaches the new one. The app's own engine does the same
    /// (`LaunchedApp.startFreshForSignedInAccount()`), with the same archives.
    ///
    /// One start afresh at a time on a device, in this process or another (the archives' folder is locked). The
    /// archive is written and checked, then the records leave the store, in one write transaction: every other
    /// writer waits, so the archive holds exactly what left; a start afresh killed after the archive was written
    /// and before the records left finds that archive next time and writes no second one.
    ///
    /// - Returns: The archive file and how many records it holds, or `nil` when there is nothing to start afresh
    ///   from (the data belongs to the account signed in, or to none, or no account is signed in).
    /// - Throws: ``MirrorError`` `store` when the archive cannot be written or checked, or the records cannot leave
    ///   or come back; the store then still holds the previous account's records, and sync stays paused.
    @discardableResult
    public func startFreshForSignedInAccount() throws(MirrorError) -> (path: String, records: Int)? {
        guard let owner = bookkeeping.accountRecordName, let current = bookkeeping.engineAccount, owner != current
        else { return nil }
        let previous = UserRecordID(recordName: owner)
        let user = UserRecordID(recordName: current)
        let folder = archivesFolder
        let archived: (path: String, records: Int)
        let held: Set<String>
        do {
            let lock: FileLock
            do {
                try FileSystem.createDirectory(folder, permissions: 0o700)
                lock = try FileLock.exclusive(folder)
            } catch {
                throw StoreError(.storage, "cannot create \(folder)", underlying: error)
            }
            defer { lock.unlock() }
            let store = store
            archived = try store.syncTransaction { transaction -> (String, Int) in
                let active = try transaction.archivableRows(of: previous)
                let (path, count) = try store.writeAccountArchive(of: previous, in: folder, holding: active)
                guard try store.archivedRows(of: previous, at: path) == active else {
                    throw StoreError(
                        .storage,
                        "the archive \(path) does not hold the previous account's records; nothing was removed")
                }
                try transaction.removeRecords(of: previous)
                return (path, count)
            }
            try store.restoreAccountArchives(of: user, in: folder)
            // What came back keeps its change tags and its unsent changes: the engine, from nothing, fetches the
            // zone whole, and what the server confirmed once and no longer holds (deleted since) goes at its end,
            // rather than going up again. What never went up is queued.
            held = try store.syncTransaction { transaction in
                try transaction.adoptUnownedRecords(as: user)
                try transaction.queueUnconfirmedRecords(of: user)
                try transaction.clearSeenRecords()
                return try transaction.recordNames().filter { try transaction.serverChangeTag(of: $0) == nil }
            }
        } catch {
            throw MirrorError(.store, "could not start afresh for the account signed in", underlying: error)
        }
        var fresh = MirrorBookkeeping()
        fresh.accountRecordName = current
        fresh.engineAccount = current
        // Each record with no tag may be on the server already (an archived first save whose answer never came):
        // it stays one that may be.
        fresh.untaggedMayBeOnServer = held
        fresh.reconcileOnFullFetch = true
        bookkeeping = fresh
        persistBookkeeping()
        // An engine from nothing: it fetches the account's data whole, and reports the account signed in, which
        // binds the data and creates the zone.
        initializeSyncEngine()
        return archived
    }
}

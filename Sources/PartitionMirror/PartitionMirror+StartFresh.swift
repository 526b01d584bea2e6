import DeviceStore
import PrivateSync
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
    /// for that account earlier, when it started afresh for another, comes back, with what the mirror knew of it
    /// then (``MirrorBookkeeping/archivedAccounts``): the engine resumes from the state that account left, and hears
    /// what happened on the server since. Nothing is deleted anywhere, and nothing of the previous account ever
    /// reaches the new one. The app's own engine does the same (`LaunchedApp.startFreshForSignedInAccount()`), with
    /// the same archives.
    ///
    /// The bookkeeping is written first, bound to the account signed in, the previous account's kept in it: from
    /// then on the previous account's records, wherever a crash leaves them (still in the store, or in the archive),
    /// never go up, and a launch brings back whatever archive of the account signed in is left. The archive is
    /// written and checked, and the records leave the store, in one write transaction under the archives' folder's
    /// lock (one start afresh at a time on a device, in any process): the archive holds exactly
    /// what left, and one killed before the records left is found again, not written twice.
    ///
    /// - Returns: The archive file and how many records it holds, or `nil` when there is nothing to start afresh
    ///   from (the data belongs to the account signed in, or to none, or no account is signed in).
    /// - Throws: ``MirrorError`` `bookkeepingNotWritten` when the bookkeeping cannot be written (nothing changed,
    ///   sync stays paused), or `store` when the archive cannot be written or checked, or the records cannot move:
    ///   the data is then bound to the account signed in, the previous account's records are in the store or the
    ///   archive (never sent), and the next launch, or the next call, goes on.
    @discardableResult
    public func startFreshForSignedInAccount() throws(MirrorError) -> (path: String, records: Int)? {
        // One stopped after binding the data (a store that could not be written) is finished first; then the one
        // asked for, if the account signed in is still another than the data's.
        let finished = bookkeeping.archivePendingFor != nil ? try finishStartFresh() : nil
        guard let owner = bookkeeping.accountRecordName, let current = bookkeeping.engineAccount, owner != current
        else { return finished }
        // What goes into the archive must not count a record deleted here among those that may be on the server.
        guard settleDeletionsUnrecorded() else {
            throw MirrorError(.bookkeepingNotWritten, "the records deleted here could not be settled; nothing moved")
        }
        var archivedAccounts = bookkeeping.archivedAccounts
        var left = bookkeeping
        left.archivedAccounts = [:]
        // A reconciling pending for the account left goes with its data (``MirrorBookkeeping/reconcileOnFullFetch``),
        // and leaves the store in the same transaction, before the bookkeeping binds the data to the account signed
        // in: left there, a crash before the archive's transaction handed it to that account, whose next fetch of a
        // few records then deleted the rest of its records (a review's finding).
        let deletesThrough: Int64
        do {
            (left.reconcileOnFullFetch, deletesThrough) = try store.syncTransaction { transaction in
                let pending = try Self.reconcilePending(transaction)
                if pending {
                    try transaction.clearSeenRecords()
                    try transaction.updateEngineState { $0.reconcileOnFullFetch = false }
                }
                return (pending, try transaction.lastRevision())
            }
        } catch {
            throw MirrorError(.store, "could not start afresh: the store cannot be written", underlying: error)
        }
        archivedAccounts[owner] = left
        let resumed = archivedAccounts.removeValue(forKey: current)
        var fresh = resumed ?? MirrorBookkeeping()
        fresh.archivedAccounts = archivedAccounts
        fresh.accountRecordName = current
        fresh.engineAccount = current
        // An archive of an account started afresh for and never synced resumes as it was: still no cycle for it.
        fresh.startedAfreshUnsynced = resumed?.startedAfreshUnsynced ?? true
        fresh.stateSerialization = fresh.dataAccountState
        // With no state to resume from, the engine fetches the zone whole: what the server confirmed once and no
        // longer holds goes at its end (the store says so, in the transaction that moves the records). A reconciling
        // the account's data went into the archive with is dropped: which records the server returned since it
        // began was not kept with the archive, and resumed without it, the next fetch of a few records deleted
        // everything else (the swarm's seed 3100). What it would have deleted stays on the device. (Resumed from no
        // state instead, to fetch the zone whole again, the engine heard of no deletion made meanwhile, since a fetch
        // from no token reports none: an encrypted-data reset went unanswered, the even sweep's seeds 792, 1055, 5923
        // and 7443.)
        fresh.archivePendingReconciles = fresh.dataAccountState == nil
        fresh.archivePendingFor = owner
        fresh.archivePendingDeletesThrough = deletesThrough
        fresh.reconcileOnFullFetch = false
        let before = bookkeeping
        bookkeeping = fresh
        guard persistBookkeeping() else {
            bookkeeping = before
            throw MirrorError(.bookkeepingNotWritten, "could not start afresh: \(bookkeepingPath) was not written")
        }
        // Bound to the account signed in: what the previous account's engine could not write is none of its own. Its
        // engine starts from its own state, with no page refused in a row, and its status does not wait for the
        // other's. (Cleared later, at the move, it wiped the wait of a page of the new account refused meanwhile.)
        forgetUnwrittenFetch()
        return try finishStartFresh()
    }

    /// The rest of a start afresh, once the bookkeeping bound the data to the account signed in
    /// (``MirrorBookkeeping/archivePendingFor``): the previous account's records move into their archive, the
    /// account signed in gets back what this device archived for it, what never went up is queued, and the engine
    /// is made again. Killed anywhere in it, the next engine made runs it again from where the store stands: an
    /// archive written and not yet committed is found again, not written twice.
    ///
    /// - Returns: The archive and how many records it holds; `nil` when no start afresh was pending.
    /// - Throws: ``MirrorError`` `store` when the archive cannot be written or checked, or the records cannot move.
    @discardableResult
    func finishStartFresh() throws(MirrorError) -> (path: String, records: Int)? {
        guard let archived = try moveArchivePending() else { return nil }
        initializeSyncEngine()
        bindAfterStartFresh()
        return archived
    }

    /// After a start afresh moved the records and the engine was made again: an engine resumed from the state the
    /// account left reports no sign-in, so the data is bound here, and the zone's creation queued with something to
    /// put in it.
    func bindAfterStartFresh() {
        guard bookkeeping.dataAccountState != nil, let current = bookkeeping.accountRecordName else { return }
        bind(to: current)
    }

    /// The move of ``finishStartFresh()``, without the engine: also run as an engine is made, before anything else.
    ///
    /// - Returns: The archive and how many records it holds; `nil` when no start afresh was pending.
    /// - Throws: ``MirrorError`` `store` when the archive cannot be written or checked, or the records cannot move.
    func moveArchivePending() throws(MirrorError) -> (path: String, records: Int)? {
        guard let owner = bookkeeping.archivePendingFor, let current = bookkeeping.accountRecordName else { return nil }
        let previous = UserRecordID(recordName: owner)
        let user = UserRecordID(recordName: current)
        // Decided now, not at the binding: an engine that ran for the account since (a move that failed, retried
        // later) keeps its state, and a reconciling set again would delete at its next small fetch what that fetch
        // did not return (the swarm's seed 3100); nor is a reconciling set since (a purge) ever cleared here.
        let reconcile = bookkeeping.archivePendingReconciles && bookkeeping.stateSerialization == nil
        let deletesThrough = bookkeeping.archivePendingDeletesThrough
        let archived: (path: String, records: Int)
        do {
            archived = try withArchivesLocked { folder throws(StoreError) in
                let store = store
                let archived = try store.syncTransaction { transaction -> (String, Int) in
                    let active = try transaction.archivableRows(of: previous)
                    let (path, count) = try store.writeAccountArchive(
                        of: previous, in: folder, holding: active, deletesThrough: deletesThrough)
                    try transaction.removeRecords(of: previous, deletesThrough: deletesThrough)
                    // The records of the previous account's zone this device could not take are not the account
                    // signed in's to hear of (the app's engine starts afresh with none, too).
                    try transaction.updateFetchedRecordProblems { $0.removeAll() }
                    if reconcile {
                        try transaction.clearSeenRecords()
                        try transaction.updateEngineState { $0.reconcileOnFullFetch = true }
                    }
                    return (path, count)
                }
                try store.restoreAccountArchives(of: user, in: folder)
                return archived
            }
        } catch {
            throw MirrorError(.store, "could not start afresh for the account signed in", underlying: error)
        }
        // What never went up is queued (the engine resumed reports no sign-in, which would queue it).
        let untagged = write("queue what never went up to the account signed in") { transaction in
            try transaction.adoptUnownedRecords(as: user)
            try transaction.queueUnconfirmedRecords(of: user)
            return try transaction.recordNames().filter { try transaction.serverChangeTag(of: $0) == nil }
        }
        // Each record with no tag may be on the server already (an archived first save whose answer never came).
        bookkeeping.untaggedMayBeOnServer.formUnion(untagged ?? [])
        bookkeeping.archivePendingFor = nil
        bookkeeping.archivePendingReconciles = false
        bookkeeping.archivePendingDeletesThrough = nil
        persistBookkeeping()
        return archived
    }

    /// Brings back the archives of the data's account that a start afresh killed after binding the data (and before
    /// bringing them back) left in the archives' folder. Called when the engine is made.
    func restoreArchivesOfTheDataAccount() {
        guard let owner = dataAccount, RecordStore<UserCreated>.hasAccountArchive(of: owner, in: archivesFolder)
        else { return }
        do {
            try withArchivesLocked { folder throws(StoreError) in
                try store.restoreAccountArchives(of: owner, in: folder)
            }
        } catch {
            note(MirrorError(.store, "could not bring back the archive of the account signed in", underlying: error))
        }
    }

    /// Runs `body` holding the archives' folder's lock (made if missing): one start afresh or restore at a time on
    /// a device, in this process or another.
    ///
    /// - Parameter body: What to do, given the folder.
    /// - Returns: What `body` returned.
    /// - Throws: `StoreError` when the folder cannot be made or locked, or what `body` throws.
    func withArchivesLocked<T>(_ body: (String) throws(StoreError) -> T) throws(StoreError) -> T {
        let folder = archivesFolder
        let lock = try RecordStore<UserCreated>.lockAccountArchives(in: folder)
        defer { lock.unlock() }
        return try body(folder)
    }
}

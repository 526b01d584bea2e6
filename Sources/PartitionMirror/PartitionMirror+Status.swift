public import DeviceStore
public import PrivateSync
import PrivateSyncEngine

extension PartitionMirror {
    /// What the settings screen shows of the mirror's sync: off, on (and how) or paused (and why), by the app's own
    /// status model (`SyncStatus.derive(from:)`), from facts the mirror holds and the account as the device reports
    /// it now (`CKContainer.accountStatus()`).
    ///
    /// The facts: the account's status is read live, so a device signed out reads paused at once, before its engine
    /// has heard; the data belongs to the account the engine last reported (until it reports one, the first sync of
    /// the account signed in has not run: on, not yet synced); a save refused because the storage is full pauses
    /// while changes wait and no save has landed since; the first download is finished once a fetch ended with
    /// nothing left to fetch (over the real CKSyncEngine, whose events say nothing of a failed fetch, once the zone was
    /// fetched to its end); the user deleted the app's data in Settings, and sync waits for the user to turn it on
    /// again (``userTurnedSyncOn()``); a send that met a transient failure (offline, busy) says waiting while changes wait
    /// and nothing has gone through since (the engine retries by itself, at a time it does not tell its delegate, so
    /// no time is shown); a page the store could not write because the disk is full (or the store was locked past
    /// the wait) says waiting, for that reason, until a page of the zone is written or a whole fetch goes through (a
    /// list of the database's changes that could not be written: until a list is; a list that deletes the zone ends
    /// the wait for its pages), and not once a start afresh bound the data to another account: the device is behind
    /// the server meanwhile, changes waiting or not (this process's mirror knows it; another process reading the
    /// bookkeeping does not). A mirror has no fallback of its own: it exists only when the user-created store is
    /// cloud-configured (the launch that made it decides the rest).
    ///
    /// Until the engine hears of a switch of account (at its next fetch or send, which an app starts when it
    /// observes `CKAccountChanged`), the status is the previous account's. Changes waiting are those of the account
    /// the data belongs to (or of none): another account's records the store keeps (written while it was signed in)
    /// never go up, and are not counted.
    ///
    /// - Parameters:
    ///   - syncWanted: Whether the user asked for sync (the app's switch).
    ///   - accountStatus: The device's account status, when the app read it itself (over the real CKSyncEngine, from
    ///     `CKContainer.accountStatus()`); `nil` reads it from the database's container.
    /// - Returns: The status.
    /// - Throws: `StoreError` when the store's pending changes cannot be read.
    public func status(
        syncWanted: Bool = true, accountStatus: AccountStatus? = nil
    ) async throws(StoreError)
        -> SyncStatus
    {
        let accountStatus = if let accountStatus { accountStatus } else { await database.container.accountStatus() }
        var facts = SyncFacts(
            syncWanted: syncWanted, userCreatedStoreIsCloud: true, launchFallback: nil, accountStatus: accountStatus,
            currentUser: nil, boundUser: nil, enginePause: nil, lastOutcome: nil, nextAttempt: nil,
            initialFetchDone: false, pendingChanges: 0)
        try Self.readEngineFacts(of: bookkeeping, store: store, into: &facts)
        Self.noteStartedAfreshUnsynced(bookkeeping, into: &facts)
        if let unwritten = fetchUnwritten { facts.lastOutcome = unwritten.wait }
        return SyncStatus.derive(from: facts)
    }

    /// Puts what the mirror knows into a status's facts: the account the engine last reported and the one the data
    /// belongs to, a pause for the user's deletion of the zone or for full storage, a send's transient failure, the
    /// first download, and the changes waiting (``status(syncWanted:accountStatus:)`` says what each means). The
    /// launch's facts (the switch, the fallback, the account's status) are left as they are.
    ///
    /// - Parameters:
    ///   - bookkeeping: The mirror's bookkeeping.
    ///   - store: The user-created store.
    ///   - facts: The facts to fill.
    /// - Throws: `StoreError` when the store's pending changes cannot be read.
    static func readEngineFacts(
        of bookkeeping: MirrorBookkeeping, store: RecordStore<UserCreated>, into facts: inout SyncFacts
    ) throws(StoreError) {
        let bound = bookkeeping.accountRecordName.map(UserRecordID.init(recordName:))
        let reported = bookkeeping.engineAccount.map(UserRecordID.init(recordName:))
        let (pending, problems, refused) = try store.syncSnapshot { transaction in
            (
                try transaction.sendablePendingCount(for: bound), try transaction.fetchedRecordProblems(),
                // Only those the store still holds as refused: a name goes from the list when the server speaks of
                // it, and one written again since waits to go up (counted among the changes waiting).
                try transaction.names(inListAt: .savesRefused).filter {
                    try transaction.containsRecord(named: $0) && transaction.pendingChange(named: $0) == nil
                }
            )
        }
        // Signed in (the status says so) but not yet reported by the engine: an account whose first sync has not
        // run, never "sign in". Another account than the data's, reported by the engine: paused until the user
        // chooses.
        facts.currentUser = reported ?? bound ?? Self.accountNotYetReported
        facts.boundUser = bound
        facts.enginePause =
            bookkeeping.pausedForUserDeletion
            ? .userDeletedZone : bookkeeping.quotaExceededHeard && pending > 0 ? .quotaExceeded : nil
        facts.lastOutcome = pending > 0 ? waitingOutcome(of: bookkeeping) : nil
        facts.nextAttempt = nil
        facts.initialFetchDone = bookkeeping.initialFetchDone
        facts.pendingChanges = pending
        facts.fetchedRecordProblems = problems
        facts.savesRefused = refused
    }

    /// A store started afresh for the account signed in, with nothing of it resumed, reads as one whose first sync has
    /// not run until an engine reports that account (``MirrorBookkeeping/startedAfreshUnsynced``): bound, but no
    /// cycle has run for it. Another account signed in since reads as a switch, from the binding. Applied once the
    /// facts name the account signed in.
    ///
    /// - Parameters:
    ///   - bookkeeping: The mirror's bookkeeping.
    ///   - facts: The facts, their account signed in final.
    static func noteStartedAfreshUnsynced(_ bookkeeping: MirrorBookkeeping, into facts: inout SyncFacts) {
        if bookkeeping.startedAfreshUnsynced, facts.boundUser == facts.currentUser { facts.boundUser = nil }
    }

    /// The last send's transient failure, as the status model reads it: waiting, and why.
    ///
    /// - Parameter bookkeeping: The mirror's bookkeeping.
    /// - Returns: The outcome, or `nil` when no send is waiting.
    static func waitingOutcome(of bookkeeping: MirrorBookkeeping) -> EngineOutcome? {
        guard let raw = bookkeeping.sendWaitingCode, let code = CloudError.Code(rawValue: raw) else { return nil }
        return .retrying(code)
    }

    /// The account signed in, as the status's facts name it before the engine has reported which it is.
    static let accountNotYetReported = UserRecordID(recordName: "_accountNotYetReportedByTheEngine")

    /// At the end of a fetch: once a fetch ended with nothing failed and every page written here, holding a database
    /// change token and no change of the zone left to fetch, the download has caught up, and the status no longer
    /// says syncing for it. (`didFetchChanges` comes after a failed fetch too: a token from the first page of the
    /// database's changes, the zone listed on a later one, is not a download caught up.)
    ///
    /// - Parameter syncEngine: The engine.
    func noteDownloadCaughtUp(_ syncEngine: PSSyncEngine) {
        guard syncEngine.lastFetchSucceeded, syncEngine.hasDatabaseChangeToken,
            !syncEngine.state.zoneIDsWithUnfetchedServerChanges.contains(zoneID)
        else { return }
        noteZoneCaughtUp()
    }

    /// The zone's changes were fetched to the end, every page written here: the first download is done.
    func noteZoneCaughtUp() {
        guard !bookkeeping.initialFetchDone, bookkeeping.accountRecordName != nil, pageWriteFailures == 0 else {
            return
        }
        bookkeeping.initialFetchDone = true
        persistBookkeeping()
    }
}

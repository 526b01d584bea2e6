public import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SyncEngine {
    /// Checks the account, binds the store on first use, makes sure the zone exists, and reads database changes.
    ///
    /// - Returns: What the cycle starts from: the user record the store is bound to (and the account signed in), and
    ///   the store's epoch.
    func prepare(_ report: inout SyncReport) async throws(Stop) -> CycleGuard {
        report.requests.append(ContainerRequest(operation: .accountStatus))
        if let reason = PauseReason(accountStatus: await container.accountStatus()) {
            throw .accountUnusable(reason)
        }
        let user: UserRecordID
        do {
            user = try await loggedUserRecordID(&report)
        } catch {
            throw stop(for: error)
        }
        // Before a store bound to no one is bound to `user`: what this device archived for `user` comes back first
        // (after binding, nothing restores it). `user` is the account this cycle binds to, whoever was signed in
        // when it began (the sweep at fae632e, seed 200: a sign-in between the two lost an archive).
        let unbound: Bool
        do {
            unbound = try state().boundUser == nil
        } catch {
            throw .store(error)
        }
        if let restoreArchives, unbound {
            do {
                try restoreArchives(user)
            } catch {
                throw .skipped(.archiveNotRestored("\(error)"))
            }
        }
        enum Binding: Sendable { case bound, newlyBound, changed }
        let (binding, epoch) = try transaction { transaction -> (Binding, Int64) in
            try transaction.updateEngineState { state in
                switch state.boundUser {
                case nil:
                    state.boundUser = user
                    try transaction.adoptUnownedRecords(as: user)
                    return (.newlyBound, state.epoch)
                case user?:
                    return (.bound, state.epoch)
                case _?:
                    return (.changed, state.epoch)
                }
            }
        }
        let cycle = CycleGuard(user: user, epoch: epoch)
        switch binding {
        case .newlyBound: emit(.boundToAccount(user), &report)
        case .changed:
            // Derived, not recorded: the status compares the bound account with the signed-in one live, so the
            // pause ends by itself when the user signs back in.
            throw .accountUnusable(.accountChanged)
        case .bound: break
        }
        try await readDatabaseChanges(cycle, &report)
        try await ensureZone(cycle, &report)
        // The user's consent to upload again covers the deletion just read, if any; it is spent once the zone
        // exists again, so it cannot approve a deletion that happens later.
        try transaction(cycle) { _, state in state.reuploadConsentCovers = 0 }
        return cycle
    }

    /// Asks the container for the signed-in user, and logs the call.
    private func loggedUserRecordID(_ report: inout SyncReport) async throws(CloudError) -> UserRecordID {
        let outcome: Result<UserRecordID, CloudError>
        do {
            outcome = .success(try await container.userRecordID())
        } catch {
            outcome = .failure(error)
        }
        return try log(.userRecordID, outcome, &report).get()
    }

    /// Makes sure, before a request, that the user still wants sync and the signed-in user is still the bound one:
    /// every container call goes to whoever is signed in at that moment.
    func verifyUser(_ user: UserRecordID, _ report: inout SyncReport) async throws(Stop) {
        try checkStillWanted()
        let current: UserRecordID
        do {
            current = try await loggedUserRecordID(&report)
        } catch {
            throw stop(for: error)
        }
        if current != user { throw .accountUnusable(.accountChanged) }
    }

    /// Creates the engine's zone unless the store knows it exists, then reads database changes again before
    /// anything is uploaded into it.
    ///
    /// The second read closes a race: the user may delete the app's data after the cycle read the database's changes
    /// and before this save, which then re-creates the zone they deleted without the device knowing. Read again, the
    /// deletion pauses the cycle before a record is sent, and the zone stays empty (the 10,000-seed sweep, seed 787).
    /// It costs one request, only in the cycles that create the zone. A deletion that lands after the second read
    /// meets the upload itself, which the server refuses (`zoneNotFound`).
    ///
    /// - Parameters:
    ///   - cycle: The cycle.
    ///   - report: The cycle's report.
    /// - Throws: `Stop` when a call fails, the cycle is overtaken, or the second read finds a deletion.
    func ensureZone(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        // More than once only when the second read finds a deletion the user already consented to (or a reset of
        // their keys), which makes the zone to be created again.
        while try !transaction({ try $0.engineState().zoneReady }) {
            do {
                let outcome: Result<[RecordZone], CloudError> = await asRequest(for: cycle.user) {
                    do throws(CloudError) {
                        return .success(try await self.container.saveZones([RecordZone(zoneID: self.zoneID)]))
                    } catch {
                        return .failure(error)
                    }
                }
                _ = try log(.saveZones, zone: zoneID, outcome, &report).get()
            } catch {
                throw stop(for: error)
            }
            try transaction(cycle) { _, state in state.zoneReady = true }
            emit(.zoneCreated(zoneID), &report)
            try await readDatabaseChanges(cycle, &report)
        }
    }

    /// Reads database changes to learn whether the zone was deleted, by the user or otherwise.
    ///
    /// A deleted zone pauses sync (`userDeletedZone`): nothing is re-uploaded behind the user's back and nothing
    /// local is deleted; the token stays before the deletion, so it is seen again until the user acts. If the user
    /// has since turned sync on again (consent), the deletion is handled in the same transaction that moves the
    /// token past it: every record of this device is queued for upload and the zone is to be created again.
    ///
    /// A store that never had the zone (a new device, a store started afresh) reads the account's history from the
    /// beginning; deletions in it are of zones this store never held, and are ignored.
    private func readDatabaseChanges(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        let user = cycle.user
        let freshStore = try transaction { transaction in
            let state = try transaction.engineState()
            return state.databaseChangeToken == nil && !state.zoneReady
        }
        var expired = 0
        while true {
            let token = try transaction { try $0.engineState().databaseChangeToken }
            let page: DatabaseChanges
            try checkStillWanted()
            do {
                page = try await loggedDatabaseChanges(since: token, for: user, &report).get()
            } catch  where error.code == .changeTokenExpired && expired < 3 {
                expired += 1
                try transaction { try $0.updateEngineState { $0.databaseChangeToken = nil } }
                continue
            } catch {
                throw stop(for: error)
            }
            // Every deletion of the zone in this page, in order; the last says whether it went with the account's keys.
            let deletions = freshStore ? [] : page.deletions.filter { $0.zoneID == zoneID }
            let keysReset = deletions.last?.reason == .encryptedDataReset
            let handled = try transaction(cycle) { transaction, state -> Bool in
                if !deletions.isEmpty {
                    // After an encrypted-data reset the user deleted nothing: their keys were reset and the server
                    // lost what it held, so this device uploads everything again (as CKSyncEngine's guidance says).
                    // Any other deletion needs the user's consent given after the device learned of it: a consent
                    // covers the deletions known when it was given, never one that happened after.
                    if !keysReset && deletions.count > state.reuploadConsentCovers {
                        state.deletionsLearned = deletions.count
                        return false
                    }
                    try Self.prepareReupload(transaction, &state, user: user)
                    state.reuploadConsentCovers = 0
                    state.deletionsLearned = 0
                }
                state.databaseChangeToken = page.changeToken
                return true
            }
            if keysReset && handled { emit(.encryptedDataReset(zoneID), &report) }
            if !handled {
                // Only a purge says the user did it (Settings › iCloud); a plain deletion may be another device's or
                // another client's, which this device cannot tell apart.
                let message =
                    deletions.last?.reason == .purged
                    ? "the user deleted this app's data from iCloud settings (zone \(zoneID) was purged)"
                    : "the app's zone \(zoneID) was deleted from iCloud (by the user, another device or another client)"
                throw .pause(.userDeletedZone, persistent: true, message: message)
            }
            if !page.moreComing { return }
        }
    }

    /// With the user's consent after the zone was deleted: forget the server's state and queue every record of
    /// this device (that may go to `user`) for upload into a zone created anew.
    static func prepareReupload(_ transaction: SyncTransaction, _ state: inout EngineState, user: UserRecordID) throws {
        try transaction.queueEverythingForUpload(to: user)
        state.zoneChangeToken = nil
        state.zoneReady = false
        state.reconcileOnFullFetch = false
        state.endPersistentPause()
    }

    /// The zone is gone although the store knew it (a call said `zoneNotFound` or `userDeletedZone`): the same
    /// policy as a deletion read from database changes. Without consent, pause; with it, re-upload.
    func zoneVanished(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        let consent = try transaction(cycle) { transaction, state -> Bool in
            guard state.reuploadConsent else {
                // Learned here, not from database changes: a consent given from now on covers it.
                state.deletionsLearned = max(1, state.deletionsLearned)
                return false
            }
            try Self.prepareReupload(transaction, &state, user: cycle.user)
            return true
        }
        guard consent else {
            try await countDeletionsLearned(cycle, &report)
            throw .pause(
                .userDeletedZone, persistent: true, message: "zone \(zoneID) is gone: the app's iCloud data was deleted"
            )
        }
        try await ensureZone(cycle, &report)
    }

    /// Asks the container for one page of database changes since `token`, as a request of `user`, and logs it.
    ///
    /// - Parameters:
    ///   - token: Where the last read ended, or `nil` for the whole history.
    ///   - user: The user the request must go to.
    ///   - report: The cycle's report, which logs the request.
    /// - Returns: The page, or the container's error.
    private func loggedDatabaseChanges(
        since token: ChangeToken?, for user: UserRecordID, _ report: inout SyncReport
    ) async -> Result<DatabaseChanges, CloudError> {
        let outcome: Result<DatabaseChanges, CloudError> = await asRequest(for: user) {
            do throws(CloudError) {
                return .success(try await self.container.databaseChanges(since: token, resultsLimit: nil))
            } catch {
                return .failure(error)
            }
        }
        return log(.databaseChanges, outcome, &report)
    }

    /// Counts the deletions of the zone the account's history holds after the kept token, when the device learned of
    /// a deletion from a call's error rather than from database changes: the user may have deleted the app's data
    /// more than once (and another device re-created the zone in between), and a consent given from now on covers
    /// every deletion made so far. Without it, the consent covered one, and the next cycle paused again for a
    /// deletion the user had already answered (the 10,000-seed sweep, seed 369). The token does not move: the next
    /// cycle reads the same deletions and spends the consent on them. A failed read keeps the count at one.
    ///
    /// - Throws: `Stop` when the cycle was overtaken meanwhile (the store started afresh, or was bound anew): its
    ///   pause then belongs to no one (the 10,000-seed sweep of this change, seed 2184).
    private func countDeletionsLearned(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        guard var token = try? transaction({ try $0.engineState().databaseChangeToken }) else { return }
        var deletions = 0
        for _ in 0..<100 {
            guard case .success(let page) = await loggedDatabaseChanges(since: token, for: cycle.user, &report)
            else { break }
            deletions += page.deletions.count { $0.zoneID == zoneID }
            token = page.changeToken
            if !page.moreComing { break }
        }
        let counted = deletions
        try transaction(cycle) { _, state in state.deletionsLearned = max(state.deletionsLearned, counted) }
    }

    /// Called when the user turns sync on: the end of a pause that only the user could end and, when this device
    /// knows the user deleted the app's iCloud data, their consent to upload this device's data again.
    ///
    /// Only a `sync on` made after the device learned of the deletion is consent: an earlier toggle was made before
    /// the user deleted their data, and can never approve putting it back.
    public func userTurnedSyncOn() throws(StoreError) {
        try store.syncTransaction { transaction in
            try transaction.updateEngineState { state in
                let pause = state.pause
                if pause == .userDeletedZone {
                    // The consent covers the deletions this device knows of now, and no later one.
                    state.reuploadConsentCovers = max(1, state.deletionsLearned)
                    // Queued now, not at the next cycle, so the status counts what is owed to iCloud from the moment
                    // the user consents (the cycle that re-creates the zone queues the same records again, harmlessly).
                    if pause == .userDeletedZone, let bound = state.boundUser {
                        try transaction.queueEverythingForUpload(to: bound)
                    }
                }
                if pause == .userDeletedZone || pause == .quotaExceeded { state.endPersistentPause() }
                // An attempt that met an unusable account (perhaps while sync was off) must not keep the engine
                // from asking to run now that the user wants it: its next cycle checks the account afresh.
                state.forgetAccountStop()
                state.nextAttempt = nil
                state.retryAttempt = 0
            }
        }
    }
}

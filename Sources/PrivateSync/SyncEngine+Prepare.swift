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
        enum Binding: Sendable { case bound, newlyBound, changed }
        let (binding, epoch) = try transaction { state -> (Binding, Int64) in
            let epoch = try state.integer(.epoch)
            switch try state.text(.boundUser).map(UserRecordID.init(recordName:)) {
            case nil:
                try state.setState(.boundUser, .text(user.recordName))
                try state.adoptUnownedRecords(as: user)
                return (.newlyBound, epoch)
            case user?:
                return (.bound, epoch)
            case _?:
                return (.changed, epoch)
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
        try await ensureZone(for: user, &report)
        // The user's consent to upload again covers the deletion just read, if any; it is spent once the zone
        // exists again, so it cannot approve a deletion that happens later.
        if !isPlanted(.consentNeverSpent) {
            try transaction(cycle) { try $0.setState(.reuploadConsent, nil) }
        }
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

    /// Creates the engine's zone unless the store knows it exists.
    func ensureZone(for user: UserRecordID, _ report: inout SyncReport) async throws(Stop) {
        let ready = try transaction { try $0.integer(.zoneReady) == 1 }
        guard !ready else { return }
        do {
            let outcome: Result<[RecordZone], CloudError> = await asRequest(for: user) {
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
        try transaction { try $0.setState(.zoneReady, .integer(1)) }
        emit(.zoneCreated(zoneID), &report)
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
        let freshStore = try transaction { state in
            try state.bytes(.databaseToken) == nil && state.integer(.zoneReady) == 0
        }
        var expired = 0
        while true {
            let token = try transaction { try $0.bytes(.databaseToken).map(ChangeToken.init(bytes:)) }
            let page: DatabaseChanges
            try checkStillWanted()
            do {
                let outcome: Result<DatabaseChanges, CloudError> = await asRequest(for: user) {
                    do throws(CloudError) {
                        return .success(try await self.container.databaseChanges(since: token, resultsLimit: nil))
                    } catch {
                        return .failure(error)
                    }
                }
                page = try log(.databaseChanges, outcome, &report).get()
            } catch  where error.code == .changeTokenExpired && expired < 3 {
                expired += 1
                try transaction { try $0.setState(.databaseToken, nil) }
                continue
            } catch {
                throw stop(for: error)
            }
            // Every deletion of the zone in this page, in order; the last says whether it went with the account's keys.
            let deletions = freshStore ? [] : page.deletions.filter { $0.zoneID == zoneID }
            let keysReset = deletions.last?.reason == .encryptedDataReset
            let handled = try transaction(cycle) { state -> Bool in
                if !deletions.isEmpty {
                    // After an encrypted-data reset the user deleted nothing: their keys were reset and the server
                    // lost what it held, so this device uploads everything again (as CKSyncEngine's guidance says).
                    // Any other deletion needs the user's consent given after the device learned of it: a consent
                    // covers the deletions known when it was given, never one that happened after.
                    if !keysReset {
                        let covered = try state.integer(.reuploadConsent)
                        if deletions.count > covered {
                            try state.setState(.deletionsLearned, .integer(Int64(deletions.count)))
                            return false
                        }
                    }
                    try Self.prepareReupload(state, user: user)
                    if !self.isPlanted(.consentNeverSpent) {
                        try state.setState(.reuploadConsent, nil)
                        try state.setState(.deletionsLearned, nil)
                    }
                }
                try state.setState(.databaseToken, .blob(page.changeToken.bytes))
                return true
            }
            if keysReset && handled { emit(.encryptedDataReset(zoneID), &report) }
            if !handled {
                throw .pause(
                    .userDeletedZone, persistent: true,
                    message: "the user deleted this app's data from iCloud settings (zone \(zoneID) is gone)")
            }
            if !page.moreComing { return }
        }
    }

    /// With the user's consent after the zone was deleted: forget the server's state and queue every record of
    /// this device (that may go to `user`) for upload into a zone created anew.
    static func prepareReupload(_ state: SyncTransaction, user: UserRecordID) throws {
        try state.queueEverythingForUpload(to: user)
        try state.setState(.zoneToken, nil)
        try state.setState(.zoneReady, nil)
        try state.setState(.reconcileOnFullFetch, nil)
        try endPersistentPause(state)
    }

    /// Ends the pause the engine recorded, and the last outcome that reported it: a status read before the next
    /// cycle ends (or after a crash inside it) must not show a pause whose cause the user has ended.
    static func endPersistentPause(_ state: SyncTransaction) throws {
        let pause = try state.text(.pauseReason).flatMap(PauseReason.init(rawValue:))
        try state.setState(.pauseReason, nil)
        if let pause, try state.text(.lastOutcome) == EngineOutcome.paused(pause).encoded {
            try state.setState(.lastOutcome, nil)
        }
    }

    /// The zone is gone although the store knew it (a call said `zoneNotFound` or `userDeletedZone`): the same
    /// policy as a deletion read from database changes. Without consent, pause; with it, re-upload.
    func zoneVanished(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        let consent = try transaction(cycle) { state -> Bool in
            guard try state.integer(.reuploadConsent) >= 1 else {
                // Learned here, not from database changes: a consent given from now on covers it.
                try state.setState(.deletionsLearned, .integer(max(1, try state.integer(.deletionsLearned))))
                return false
            }
            try Self.prepareReupload(state, user: cycle.user)
            return true
        }
        guard consent else {
            throw .pause(
                .userDeletedZone, persistent: true, message: "zone \(zoneID) is gone: the app's iCloud data was deleted"
            )
        }
        try await ensureZone(for: cycle.user, &report)
    }

    /// Called when the user turns sync on: the end of a pause that only the user could end and, when this device
    /// knows the user deleted the app's iCloud data, their consent to upload this device's data again.
    ///
    /// Only a `sync on` made after the device learned of the deletion is consent: an earlier toggle was made before
    /// the user deleted their data, and can never approve putting it back.
    public func userTurnedSyncOn() throws(StoreError) {
        try store.syncTransaction { state in
            let pause = try state.text(.pauseReason).flatMap(PauseReason.init(rawValue:))
            if pause == .userDeletedZone || self.isPlanted(.earlyToggleConsents) {
                // The consent covers the deletions this device knows of now, and no later one.
                let learned = max(1, try state.integer(.deletionsLearned))
                try state.setState(.reuploadConsent, .integer(learned))
                // Queued now, not at the next cycle, so the status counts what is owed to iCloud from the moment
                // the user consents (the cycle that re-creates the zone queues the same records again, harmlessly).
                if pause == .userDeletedZone, let bound = try state.text(.boundUser) {
                    try state.queueEverythingForUpload(to: UserRecordID(recordName: bound))
                }
            }
            if pause == .userDeletedZone || pause == .quotaExceeded {
                try Self.endPersistentPause(state)
            }
            try state.setState(.nextAttemptAt, nil)
            try state.setState(.retryAttempt, nil)
        }
    }
}

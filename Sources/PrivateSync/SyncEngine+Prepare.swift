import DeviceStore
import FoundationEssentials
import PrivateCloud
import SQLite

extension SyncEngine {
    /// Checks the account, binds the store on first use, makes sure the zone exists, and reads database changes.
    ///
    /// - Returns: The user record the store is bound to (and the account signed in).
    func prepare(_ report: inout SyncReport) async throws(Stop) -> UserRecordID {
        let status = await container.accountStatus()
        switch status {
        case .available: break
        case .noAccount: throw .accountUnusable(.noAccount)
        case .restricted: throw .accountUnusable(.accountRestricted)
        case .temporarilyUnavailable, .couldNotDetermine: throw .accountUnusable(.accountTemporarilyUnavailable)
        }
        let user: UserRecordID
        do {
            user = try await container.userRecordID()
        } catch {
            throw stop(for: error)
        }
        enum Binding: Sendable { case bound, newlyBound, changed }
        let binding = try transaction { state -> Binding in
            switch try state.text(.boundUser).map(UserRecordID.init(recordName:)) {
            case nil:
                try state.setState(.boundUser, .text(user.recordName))
                try state.adoptUnownedRecords(as: user)
                return .newlyBound
            case user?:
                return .bound
            case _?:
                return .changed
            }
        }
        switch binding {
        case .newlyBound: emit(.boundToAccount(user), &report)
        case .changed:
            // Derived, not recorded: the status compares the bound account with the signed-in one live, so the
            // pause ends by itself when the user signs back in.
            throw .accountUnusable(.accountChanged)
        case .bound: break
        }
        try await ensureZone(&report)
        try await readDatabaseChanges(user: user, &report)
        return user
    }

    /// Creates the engine's zone unless the store knows it exists.
    func ensureZone(_ report: inout SyncReport) async throws(Stop) {
        let ready = try transaction { try $0.integer(.zoneReady) == 1 }
        guard !ready else { return }
        do {
            _ = try await container.saveZones([RecordZone(zoneID: zoneID)])
        } catch {
            throw stop(for: error)
        }
        try transaction { try $0.setState(.zoneReady, .integer(1)) }
        emit(.zoneCreated(zoneID), &report)
    }

    /// Reads database changes to learn whether the zone was deleted, by the user or otherwise.
    ///
    /// A deleted zone pauses sync (`userDeletedZone`): nothing is re-uploaded behind the user's back and nothing
    /// local is deleted. If the user has since turned sync on again (consent), the engine instead queues every
    /// record of this device for upload and creates the zone again.
    private func readDatabaseChanges(user: UserRecordID, _ report: inout SyncReport) async throws(Stop) {
        var zoneWasDeleted = false
        while true {
            let token = try transaction { try $0.bytes(.databaseToken).map(ChangeToken.init(bytes:)) }
            let page: DatabaseChanges
            do {
                page = try await container.databaseChanges(since: token, resultsLimit: nil)
            } catch  where error.code == .changeTokenExpired {
                try transaction { try $0.setState(.databaseToken, nil) }
                continue
            } catch {
                throw stop(for: error)
            }
            let deleted = page.deletions.contains { $0.zoneID == zoneID }
            zoneWasDeleted = zoneWasDeleted || deleted
            let consent = try transaction { state -> Bool in
                let consent = try state.integer(.reuploadConsent) == 1
                if deleted && !consent {
                    // Keep the token before the deletion, so that the deletion is seen again until the user acts.
                    return false
                }
                try state.setState(.databaseToken, .blob(page.changeToken.bytes))
                return consent
            }
            if deleted && !consent {
                throw .pause(
                    .userDeletedZone, persistent: true,
                    message: "the user deleted this app's data from iCloud settings (zone \(zoneID) is gone)")
            }
            if !page.moreComing { break }
        }
        let consent = try transaction { try $0.integer(.reuploadConsent) == 1 }
        guard consent else { return }
        if zoneWasDeleted {
            try transaction { state in
                try state.queueEverythingForUpload(to: user)
                try state.setState(.zoneToken, nil)
                try state.setState(.zoneReady, nil)
                try state.setState(.reconcileOnFullFetch, nil)
            }
            try await ensureZone(&report)
        }
        try transaction { try $0.setState(.reuploadConsent, nil) }
    }

    /// Called when the user turns sync on: their consent to upload this device's data again if the app's iCloud
    /// data was deleted, and the end of a pause that only the user could end.
    public func userTurnedSyncOn() throws(StoreError) {
        try store.syncTransaction { state in
            try state.setState(.reuploadConsent, .integer(1))
            let pause = try state.text(.pauseReason).flatMap(PauseReason.init(rawValue:))
            if pause == .userDeletedZone || pause == .quotaExceeded {
                try state.setState(.pauseReason, nil)
            }
            try state.setState(.nextAttemptAt, nil)
            try state.setState(.retryAttempt, nil)
        }
    }
}

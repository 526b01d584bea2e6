import DeviceStore
import PrivateSyncEngine

extension PartitionMirror {
    /// A sign-in keeps what the device holds and uploads it; a switch or a sign-out deletes it, with the engine's
    /// state, and starts a new engine.
    ///
    /// - Parameter event: The change.
    func handleAccountChange(_ event: PSSyncEngine.Event.AccountChange) {
        switch event.changeType {
        case .signIn(let currentUser):
            if let owner = bookkeeping.accountRecordName, owner != currentUser.recordName {
                // Records of another account, written after it was left and before this engine ran: never upload
                // them to this one.
                deleteLocalData()
                bookkeeping.accountRecordName = currentUser.recordName
                persistBookkeeping()
                return
            }
            bookkeeping.accountRecordName = currentUser.recordName
            persistBookkeeping()
            let user = UserRecordID(recordName: currentUser.recordName)
            let held = write("queue the records for the account signed into") { transaction -> Bool in
                try transaction.adoptUnownedRecords(as: user)
                try transaction.queueRecordsWithoutPendingChange()
                return try transaction.pendingChanges(limit: Int.max).contains { $0.kind == .save }
            }
            // The zone's save only with something to put in it: queued for nothing, it would create again a zone
            // the user may have deleted in Settings since.
            guard held == true, let engine else { return }
            engine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: zoneID))])
            addUnsentChanges(to: engine)
        case .switchAccounts(_, let currentUser):
            deleteLocalData()
            bookkeeping.accountRecordName = currentUser.recordName
            persistBookkeeping()
        case .signOut:
            deleteLocalData()
        }
    }

    /// Deletes every user-created record and the engine's state, and starts a new engine from nothing.
    func deleteLocalData() {
        write("delete the data of the account left") { try $0.removeAllRecords() }
        bookkeeping = MirrorBookkeeping()
        persistBookkeeping()
        initializeSyncEngine()
    }
}

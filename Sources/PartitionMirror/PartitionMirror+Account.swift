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
            // What was written signed into no account goes to this one; what another account's records are here
            // (a store whose bookkeeping was lost, say) stays on the device and never goes up.
            let held = write("queue the records for the account signed into") { transaction -> Bool in
                try transaction.adoptUnownedRecords(as: user)
                try transaction.queueUnconfirmedRecords(of: user)
                return try transaction.pendingChanges(limit: Int.max).contains { $0.kind == .save }
            }
            // The zone's save only with something to put in it: queued for nothing, it would create again a zone
            // the user may have deleted in Settings since.
            guard held == true, let engine, !bookkeeping.pausedForUserDeletion else { return }
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
    ///
    /// Should the deletion fail, the records stay, written under the account left: no batch sends a record of
    /// another account than the one signed in (``nextRecordZoneChangeBatch(_:syncEngine:)``), so none reaches the
    /// new one.
    func deleteLocalData() {
        write("delete the data of the account left") { try $0.removeAllRecords() }
        bookkeeping = MirrorBookkeeping()
        persistBookkeeping()
        initializeSyncEngine()
    }
}

import DeviceStore
import PrivateSyncEngine

extension PartitionMirror {
    /// A change of account, by the app's own rule: the data stays this device's. A sign-out keeps it (the status
    /// reads paused, no account); the account it belongs to, signed in again, resumes where it stood; another
    /// account signed in pauses sync (`accountChanged`) until the user chooses to start afresh for it
    /// (``startFreshForSignedInAccount()``), which keeps the data in an archive, or until the data's account comes
    /// back. Nothing of one account ever goes to another.
    ///
    /// - Parameter event: The change.
    func handleAccountChange(_ event: PSSyncEngine.Event.AccountChange) {
        // The engine forgot its state at the change (its state update follows): written now with the account it
        // reports, so that no crash leaves the account of one with the state of another (a relaunch would resume an
        // engine that reports nothing, and the mirror would wait for ever). Made from nothing, the engine reports
        // the account signed in at its first use.
        bookkeeping.stateSerialization = nil
        switch event.changeType {
        case .signIn(let currentUser):
            accountSignedIn(currentUser.recordName)
        case .switchAccounts(_, let currentUser):
            accountSignedIn(currentUser.recordName)
        case .signOut:
            // The engine forgot its state; the bookkeeping keeps the state the data's account left
            // (``MirrorBookkeeping/dataAccountState``), to resume from.
            bookkeeping.engineAccount = nil
            persistBookkeeping()
        }
    }

    /// The engine reports `current` signed in: the data's account resumes, a device with no data's account binds
    /// its data to it, and another pauses.
    ///
    /// - Parameter current: The user record name of the account signed in.
    func accountSignedIn(_ current: String) {
        let reported = bookkeeping.engineAccount
        bookkeeping.engineAccount = current
        if let owner = bookkeeping.accountRecordName, owner != current {
            // Another account's data is here: paused until the user chooses. What was written signed into no
            // account is the account signed in's (the app saw it next), kept apart from the data's.
            write("give what was written signed out to the account signed in") {
                try $0.adoptUnownedRecords(as: UserRecordID(recordName: current))
            }
            persistBookkeeping()
            return
        }
        if bookkeeping.accountRecordName == current, reported != current, let resumed = bookkeeping.dataAccountState {
            // The data's account is back. The engine that reported it forgot its state at the change; one made from
            // the state the account left resumes where it stood (its tokens, its pending changes), and the one that
            // reported it is ignored from now on.
            bookkeeping.stateSerialization = resumed
            persistBookkeeping()
            initializeSyncEngine()
        }
        bind(to: current)
    }

    /// Binds the data to the account signed in (the first account, or the data's account back): what was written
    /// signed into no account goes to it, and what never went up is queued, with the zone's creation when there is
    /// something to put in it.
    ///
    /// - Parameter current: The user record name of the account signed in.
    func bind(to current: String) {
        bookkeeping.accountRecordName = current
        bookkeeping.startedAfreshUnsynced = false
        persistBookkeeping()
        restoreArchivesOfTheDataAccount()
        let user = UserRecordID(recordName: current)
        // What was written signed into no account goes to this one; what another account's records are here
        // (written while it was signed in, or a store whose bookkeeping was lost) stays on the device and never goes
        // up.
        let held = write("queue the records for the account signed into") { transaction -> Bool in
            try transaction.adoptUnownedRecords(as: user)
            try transaction.queueUnconfirmedRecords(of: user)
            return try transaction.pendingChanges(limit: Int.max).contains { $0.kind == .save }
        }
        // The zone's save only with something to put in it: queued for nothing, it would create again a zone
        // the user may have deleted in Settings since.
        // Nor while sync is paused for a deletion of the zone, or a save found the zone missing and the list has not
        // said who deleted it: the zone is created again only at the user's word. Nor for a zone this device knows:
        // it is there, as far as it knows, and a save queued for it would create it again, unasked, if someone
        // deleted it meanwhile (a sign-out and back, the account's own zone deleted in between: the sweep's seed 562).
        guard held == true, let engine, sendsChanges else { return }
        if !bookkeeping.zoneKnown {
            engine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: zoneID))])
        }
        addUnsentChanges(to: engine)
    }

    /// The account the data belongs to, once the engine reported one.
    var dataAccount: UserRecordID? {
        bookkeeping.accountRecordName.map(UserRecordID.init(recordName:))
    }

    /// Whether the engine works for the account the data belongs to (or the data belongs to none yet): otherwise it
    /// is another account's (sync paused, `accountChanged`) or no one's (signed out), and none of its news, nor its
    /// state, is the data's.
    var engineServesTheData: Bool {
        bookkeeping.accountRecordName == nil || bookkeeping.engineAccount == bookkeeping.accountRecordName
    }

    /// Whether the engine may be given changes to send: it works for the data's account, sync is not paused for a
    /// deletion of the zone, and no save found the zone it knew missing (``MirrorBookkeeping/zoneMissingHeard``).
    var sendsChanges: Bool {
        engineServesTheData && !bookkeeping.pausedForUserDeletion && !bookkeeping.zoneMissingHeard
    }
}

import DeviceStore
import PrivateSync
import PrivateSyncEngine

extension PartitionMirror {
    /// The user turns sync on again after deleting the app's data from iCloud settings: everything this device holds
    /// of the account goes up again, as new records, into the zone created anew. The app's own engine asks the same
    /// (`SyncEngine.userTurnedSyncOn()`; the settings copy: "Turn sync off and on to upload this device's data
    /// again").
    ///
    /// The consent covers the deletions this device knows of now: one it learns of later pauses sync again. A
    /// deletion the device learned of from a refused save is reported again by the database's list, later; that
    /// report is the one consented to, not a new one (``MirrorBookkeeping/purgedReportsHeard``).
    ///
    /// - Returns: Whether sync was paused for the deletion and now uploads again; `false` when there was nothing to
    ///   consent to (no deletion learned, or consented already).
    /// - Throws: ``MirrorError`` `store` when the records cannot be queued again; sync stays paused, and nothing
    ///   changed.
    @discardableResult
    public func userTurnedSyncOn() throws(MirrorError) -> Bool {
        guard bookkeeping.pausedForUserDeletion else { return false }
        let user = dataAccount
        let held: Set<String>
        do {
            // The change tags are of the zone deleted: every record goes up as new (one another device uploaded
            // since meets it as a conflict, and the two are merged).
            held = try store.syncTransaction { transaction in
                try transaction.queueEverythingForUpload(to: user)
                return try transaction.recordNames()
            }
        } catch {
            throw MirrorError(.store, "could not queue this device's data to upload again", underlying: error)
        }
        // Without its tag here, each may be on the server again soon (other devices upload their copies too).
        bookkeeping.untaggedMayBeOnServer.formUnion(held)
        bookkeeping.firstSendUnanswered = []
        bookkeeping.pausedForUserDeletion = false
        // Until the zone is there again, a refusal for its deletion is of the deletion consented to, and creates it.
        // Known there already (another device made it again, and a fetch listed it), a later refusal is news: a new
        // deletion (the sweep's seed 3718: taken as the old one, it created the zone again unasked).
        bookkeeping.zonePurgedByUser = !bookkeeping.zoneKnown
        // Not written, the next launch reads the pause again and asks again: nothing is lost either way.
        persistBookkeeping()
        // Signed out, or into another account: the data's account, back, creates the zone (``bind(to:)``). Not a
        // zone known to be there again (another device made it, and a fetch listed it since): the creation would
        // wait in the engine and, should someone delete the zone before it goes, undo that deletion unasked (the
        // sweep's seed 3718).
        if sendsChanges {
            let engine = syncEngine
            if !bookkeeping.zoneKnown {
                engine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: zoneID))])
            }
            addUnsentChanges(to: engine)
        }
        return true
    }

    /// This device learned that the zone was deleted (by the user in Settings, or by an app): sync pauses until the
    /// user turns it on again. Nothing held here is deleted, and nothing is sent: the engine's pending changes leave
    /// its list (the store keeps them queued), and the zone is not created again.
    ///
    /// - Parameters:
    ///   - heardFromRefusal: Whether the news came from a refused save (the database's list reports it later).
    ///   - reportedReason: The reason the database's list gave, or `nil` when the news came otherwise.
    ///   - syncEngine: The engine.
    func pauseForUserDeletion(
        heardFromRefusal: Bool, reportedReason: PSDatabase.DatabaseChange.Deletion.Reason? = nil,
        syncEngine: PSSyncEngine
    ) {
        let before = bookkeeping
        bookkeeping.zoneKnown = false
        bookkeeping.zoneMissingHeard = false
        // Nothing here is deleted while paused (an earlier deletion's reconciling would): the user's word uploads
        // everything held.
        write("drop the reconciling of an earlier deletion") { transaction in
            try transaction.updateEngineState { $0.reconcileOnFullFetch = false }
        }
        if bookkeeping.pausedForUserDeletion {
            // The list's report of the purge a refused save told of (`userDeletedZone`): no report of it is still to
            // come. (A deletion by an app listed before it is an older one.)
            if reportedReason == .purged && bookkeeping.purgeHeardFromRefusal {
                bookkeeping.purgeHeardFromRefusal = false
            }
            // Paused already, a second report usually changes nothing: nothing to write then.
            if bookkeeping != before { persistBookkeeping() }
            return
        }
        bookkeeping.pausedForUserDeletion = true
        bookkeeping.purgeHeardFromRefusal = heardFromRefusal
        bookkeeping.zonePurgedByUser = false
        persistBookkeeping()
        withdrawChangesFromTheEngine(syncEngine)
    }

    /// Takes every record change, and the zone's save, out of the engine's list: the store keeps them queued, for
    /// when sync may send again.
    ///
    /// - Parameter syncEngine: The engine.
    func withdrawChangesFromTheEngine(_ syncEngine: PSSyncEngine) {
        syncEngine.state.remove(pendingRecordZoneChanges: syncEngine.state.pendingRecordZoneChanges)
        dropZoneSave(from: syncEngine)
    }

    /// Takes the zone's save out of the engine's list: paused, or the zone known to be there, nothing is to be
    /// created. A save left there (queued when the zone was not known, kept in the state across a launch) would
    /// create the zone again, unasked, should someone delete it before the engine sends (the sweep's seed 1343).
    ///
    /// - Parameter syncEngine: The engine.
    func dropZoneSave(from syncEngine: PSSyncEngine) {
        let saves = syncEngine.state.pendingDatabaseChanges.filter {
            if case .saveZone(let zone) = $0 { zone.zoneID.zoneName == zoneID.zoneName } else { false }
        }
        if !saves.isEmpty { syncEngine.state.remove(pendingDatabaseChanges: saves) }
    }
}

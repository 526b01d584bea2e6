import DeviceStore
import PrivateSync
import PrivateSyncEngine

extension PartitionMirror {
    /// Takes the server's records into the store: a record this device has no unsent change of is taken as it is,
    /// one it has is merged per field (the last writer wins), a local delete waits to be sent, and a deletion
    /// deletes.
    ///
    /// - Parameter event: The changes.
    func handleFetchedRecordZoneChanges(_ event: PSSyncEngine.Event.FetchedRecordZoneChanges) {
        let user = bookkeeping.accountRecordName.map(UserRecordID.init(recordName:))
        let partition = store.partition
        let resolver = resolver
        let zoneName = zoneID.zoneName
        let modifications = event.modifications.map(\.record).filter { $0.recordID.zoneID.zoneName == zoneName }
        let deletions = event.deletions.map(\.recordID).filter { $0.zoneID.zoneName == zoneName }
        let reconciling = bookkeeping.reconcileOnFullFetch
        let mayBeOnServer = bookkeeping.firstSendUnanswered.union(bookkeeping.untaggedMayBeOnServer)
        var tooLarge: [String] = []
        let problems = write("store the fetched records") { transaction -> [String] in
            var problems: [String] = []
            for fetched in modifications {
                let cloud = fetched.containerRecord
                if reconciling { try transaction.markSeen(cloud.recordID.recordName) }
                // Only user-created types belong in this store; anything else in the zone is not ours to take.
                guard partition.partition(of: cloud.recordType) == .userCreated else { continue }
                let name = cloud.recordID.recordName
                let pending = try transaction.pendingChange(named: name)
                if pending?.kind == .delete { continue }  // A local delete wins; it is sent next.
                let local = try transaction.record(named: name)
                // Another client's record under the name of one of another type here: its fields are not this
                // type's, and the record here stays what it is.
                if let local, local.type != cloud.recordType {
                    problems.append("\(name): a \(cloud.recordType) on the server, a \(local.type) here")
                    continue
                }
                // The server's copy of a version this device already has (its own save, come back).
                if local != nil, try transaction.serverChangeTag(of: name) == cloud.recordChangeTag { continue }
                let server = RecordMapping.storedRecord(from: cloud, origin: user, existing: local)
                // Other clients write the container too: a record this device cannot store is left on the server.
                if let problem = server.storageProblem(serverFields: cloud.systemFields) {
                    problems.append("\(name): \(problem)")
                    continue
                }
                guard let local, let pending else {
                    try transaction.putRecord(server, serverFields: cloud.systemFields)
                    continue
                }
                // Too large to upload, the merge keeps the server's version (the app's engine does the same).
                let merge = resolver.mergeOutcome(local: local, server: server)
                if merge.tooLarge { tooLarge.append(name) }
                let merged = merge.record
                try transaction.putRecord(merged, serverFields: cloud.systemFields)
                if merged.matchesForUpload(server) {
                    try transaction.removePendingChange(named: name, ifRevision: pending.revision)
                }
            }
            for deletion in deletions {
                // A record made here anew under the name of one deleted (this device's own delete, come back, or
                // another's): no save of it ever left, so the deletion is of its predecessor, and it stays.
                let name = deletion.recordName
                if !mayBeOnServer.contains(name), try transaction.pendingChange(named: name)?.kind == .save,
                    try transaction.serverChangeTag(of: name) == nil, try transaction.containsRecord(named: name)
                {
                    continue
                }
                try transaction.deleteRecord(named: deletion.recordName)
                try transaction.removePendingChange(named: deletion.recordName, ifRevision: nil)
            }
            return problems
        }
        guard let problems else {
            // The page is not in the store, and the engine's token is past it: start again from the state last
            // persisted, which is before it, so that the page is fetched again (the engine's later events are
            // ignored, as a replaced engine's are). Not for ever: a store that refuses every write (a full disk)
            // would fetch the page again and again; after a few, the engine goes on, and the next launch, which
            // starts from the state before the page, fetches it.
            pageWriteFailures += 1
            if pageWriteFailures <= Self.pageRefetchLimit { initializeSyncEngine() }
            return
        }
        pageWriteFailures = 0
        for name in tooLarge { note(Self.mergeTooLarge(name)) }
        for problem in problems {
            note(MirrorError(.fetchedRecordRefused, "a fetched record was not stored: \(problem)"))
        }
        let fetched = Set(modifications.map(\.recordID.recordName) + deletions.map(\.recordName))
        // Fetched, a record carries its tag (or is gone): the sets that stood in for one let it go.
        if !bookkeeping.firstSendUnanswered.isDisjoint(with: fetched)
            || !bookkeeping.untaggedMayBeOnServer.isDisjoint(with: fetched)
        {
            bookkeeping.firstSendUnanswered.subtract(fetched)
            bookkeeping.untaggedMayBeOnServer.subtract(fetched)
            persistBookkeeping()
        }
    }

    /// The end of a fetch of the zone: when a purge may have been a second one, the records the server confirmed
    /// once and did not return (and that wait for no save) are deleted.
    ///
    /// - Parameter event: The end of the fetch.
    func handleDidFetchRecordZoneChanges(_ event: PSSyncEngine.Event.DidFetchRecordZoneChanges) {
        guard event.zoneID.zoneName == zoneID.zoneName, event.error == nil else { return }
        noteZoneCaughtUp()
        guard bookkeeping.reconcileOnFullFetch else { return }
        let removed = write("delete what the zone no longer holds") {
            try $0.deleteSyncedRecordsNotSeen(of: dataAccount)
        }
        guard let removed else { return }
        bookkeeping.reconcileOnFullFetch = false
        bookkeeping.firstSendUnanswered.subtract(removed)
        bookkeeping.untaggedMayBeOnServer.subtract(removed)
        persistBookkeeping()
    }

    /// A deletion of the zone: by an app, what it held goes here too (what never went up stays); by the user in Settings, sync pauses and everything
    /// here stays, until the user turns sync on again (``userTurnedSyncOn()``); in an encrypted-data reset,
    /// everything here goes up again.
    ///
    /// - Parameters:
    ///   - event: The database's changes.
    ///   - syncEngine: The engine.
    func handleFetchedDatabaseChanges(_ event: PSSyncEngine.Event.FetchedDatabaseChanges, syncEngine: PSSyncEngine) {
        var changed = false
        let deletions = event.deletions.filter { $0.zoneID.zoneName == zoneID.zoneName }
        for deletion in deletions {
            // The user's deletion in Settings that this device heard of from a refused save, and turned sync on again
            // after, is still to be reported (the list reports in order, on one page or several): a deletion by an
            // app listed before it is older than the user's word, and what it would delete here the user has since
            // chosen to upload again (the purge took it from the server all the same).
            let consentedPurgeToCome =
                (bookkeeping.zonePurgedByUser && bookkeeping.purgeHeardFromRefusal)
                || bookkeeping.purgedReportsHeard > 0
            if consentedPurgeToCome, deletion.reason == .deleted, bookkeeping.deletedReportsHeard == 0 { continue }
            switch deletion.reason {
            case .purged where bookkeeping.purgedReportsHeard > 0, .deleted where bookkeeping.deletedReportsHeard > 0:
                // The deletion this device heard of from a refused save (`userDeletedZone`, `zoneNotFound`) and
                // created the zone again after, or a second deletion: the list cannot tell. What the server no longer holds of what it confirmed goes:
                // at the end of the zone's fetch, whole (the engine forgot its token), when the zone is there now;
                // at once, below, when it is not. Deleting it all now would lose what went up since the first;
                // keeping it all would keep what a second purge took.
                if deletion.reason == .purged {
                    bookkeeping.purgedReportsHeard -= 1
                } else {
                    bookkeeping.deletedReportsHeard -= 1
                }
                if write("start remembering what the zone's fetch returns", { try $0.clearSeenRecords() }) != nil {
                    bookkeeping.reconcileOnFullFetch = true
                }
            case .purged where bookkeeping.zonePurgedByUser && bookkeeping.purgeHeardFromRefusal:
                // The report of the deletion a refused save told of, which the user turned sync on again after,
                // before this device created the zone again: the one consented to, not a new one.
                bookkeeping.purgeHeardFromRefusal = false
            case .purged:
                // The user deleted the app's data in Settings: nothing goes up again without the user's word.
                pauseForUserDeletion(heardFromRefusal: false, syncEngine: syncEngine)
            case .deleted:
                // What the zone held goes: the data's account's records the server confirmed, or may hold, unless an
                // edit made here waits to go up (as when a save finds its record deleted, `unknownItem`): that goes up
                // again, as new. What never went up stays too (written after the deletion, on a device that hears of
                // it late, it is no part of what was deleted), and creates the zone again; another account's records
                // the store keeps were never in this zone. Not deleted (the store refused), nothing of the bookkeeping
                // changes either: the next launch starts from the state before this report, and hears it again.
                let mayBeOnServer = bookkeeping.firstSendUnanswered.union(bookkeeping.untaggedMayBeOnServer)
                let owner = dataAccount
                let outcome = write("delete the records of the deleted zone") {
                    transaction -> (gone: Set<String>, edited: Set<String>) in
                    var gone: Set<String> = []
                    var edited: Set<String> = []
                    for name in try transaction.recordNames() {
                        guard let record = try transaction.record(named: name),
                            record.origin == nil || record.origin == owner,
                            try mayBeOnServer.contains(name) || transaction.serverChangeTag(of: name) != nil
                        else { continue }
                        if try transaction.pendingChange(named: name)?.kind == .save {
                            try transaction.putRecord(record, serverFields: nil)
                            edited.insert(name)
                        } else {
                            try transaction.deleteRecord(named: name)
                            try transaction.removePendingChange(named: name, ifRevision: nil)
                            gone.insert(name)
                        }
                    }
                    return (gone, edited)
                }
                guard let outcome else { continue }
                syncEngine.state.remove(pendingRecordZoneChanges: outcome.gone.map { .saveRecord(recordID($0)) })
                // An edit sent again, as new, may meet a copy another device sent: it stays one that may be there.
                bookkeeping.untaggedMayBeOnServer = outcome.edited
                bookkeeping.firstSendUnanswered = []
                bookkeeping.reconcileOnFullFetch = false
                bookkeeping.zonePurgedByUser = false
                bookkeeping.deletedReportsHeard = 0
                bookkeeping.purgedReportsHeard = 0
                bookkeeping.purgeHeardFromRefusal = false
            case .encryptedDataReset:
                // The server lost them; this device still has them: upload them all again, as new records, into
                // the zone created again.
                let user = UserRecordID(recordName: bookkeeping.accountRecordName ?? "")
                // Every record held may be on the server again soon (each device uploads its copy): without its tag
                // here, it stays one that may be.
                let held = write("queue everything again after the reset") { transaction -> Set<String> in
                    try transaction.clearServerFields()
                    try transaction.queueUnconfirmedRecords(of: user)
                    return try transaction.recordNames()
                }
                guard let held else { continue }
                bookkeeping.untaggedMayBeOnServer.formUnion(held)
                bookkeeping.firstSendUnanswered = []
                bookkeeping.zonePurgedByUser = false
                // Paused for the user's own deletion, the device waits for the user still; the consent uploads
                // everything it holds, this too.
                if !bookkeeping.pausedForUserDeletion {
                    syncEngine.state.add(
                        pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: deletion.zoneID))])
                    addUnsentChanges(to: syncEngine)
                }
            }
            changed = true
        }
        // A zone changed after its deletion was created again (by this device or another): it is there now.
        let deleted = Set(event.deletions.map(\.zoneID))
        let zoneThere = event.modifications.contains {
            $0.zoneID.zoneName == zoneID.zoneName && !deleted.contains($0.zoneID)
        }
        // Listed as changed, the zone is there now (a deletion in the same list came first).
        let zoneListed = event.modifications.contains { $0.zoneID.zoneName == zoneID.zoneName }
        let zoneDeleted = event.deletions.contains { $0.zoneID.zoneName == zoneID.zoneName }
        if bookkeeping.reconcileOnFullFetch && zoneDeleted && !zoneListed {
            // Deleted after the token and not created again since (it would be listed as changed): the server holds
            // nothing of the zone, so nothing it confirmed is there. (A reset after the purge, in this list, has
            // already cleared the change tags and queued everything again: nothing goes then.)
            let removed = write("delete what the deleted zone held") {
                try $0.deleteSyncedRecordsNotSeen(of: dataAccount)
            }
            if let removed {
                bookkeeping.reconcileOnFullFetch = false
                bookkeeping.firstSendUnanswered.subtract(removed)
                bookkeeping.untaggedMayBeOnServer.subtract(removed)
                changed = true
            }
        }
        if zoneThere && bookkeeping.zonePurgedByUser {
            bookkeeping.zonePurgedByUser = false
            changed = true
        }
        if zoneThere && bookkeeping.deletedReportsHeard + bookkeeping.purgedReportsHeard > 0 {
            // The list is past the deletions (it lists changes in order): their reports are not to come.
            bookkeeping.deletedReportsHeard = 0
            bookkeeping.purgedReportsHeard = 0
            changed = true
        }
        if changed { persistBookkeeping() }
    }
}

import DeviceStore
import PrivateSync
import PrivateSyncEngine

extension PartitionMirror {
    /// Takes the server's records into the store: a record this device has no unsent change of is taken as it is,
    /// one it has is merged per field (the last writer wins), as is one the server never saw (its save refused for
    /// good, ``EngineState/savesRefused``, or every record while paused for the user's deletion of the zone), a
    /// local delete waits to be sent, and a deletion deletes all but a record made anew here under its name. A record another client wrote with a value this device cannot take is left on the server, or taken
    /// with its reserved values set aside, and named in the store's list the status reads
    /// (``EngineState/fetchedRecordProblems``, in the page's transaction, as the app's own engine keeps it), until a
    /// sound version of it or its deletion comes.
    ///
    /// - Parameter event: The changes.
    func handleFetchedRecordZoneChanges(_ event: PSSyncEngine.Event.FetchedRecordZoneChanges) {
        let user = bookkeeping.accountRecordName.map(UserRecordID.init(recordName:))
        let partition = store.partition
        let resolver = resolver
        let zoneName = zoneID.zoneName
        let modifications = event.modifications.map(\.record).filter { $0.recordID.zoneID.zoneName == zoneName }
        let deletions = event.deletions.map(\.recordID).filter { $0.zoneID.zoneName == zoneName }
        let mayBeOnServer = bookkeeping.firstSendUnanswered.union(bookkeeping.untaggedMayBeOnServer)
        let pausedForUserDeletion = bookkeeping.pausedForUserDeletion
        var tooLarge: [String] = []
        let problems = write("store the fetched records") { transaction -> [FetchedRecordProblem] in
            var problems: [FetchedRecordProblem] = []
            var named = try transaction.fetchedRecordProblems()
            /// Names what this device could not take of a fetched record, in the list and for the cycle's report.
            func refuse(_ name: String, _ problem: String, stored: Bool = false) {
                problems.append(
                    FetchedRecordProblem(
                        name: name, problem: EngineState.note(problem, of: name, in: &named), stored: stored))
            }
            let reconciling = try Self.reconcilePending(transaction)
            var notLanded = try transaction.names(inListAt: .creationsNotLanded)
            let deletedHere = try transaction.names(inListAt: .namesDeletedHere)
            let savesRefused = try transaction.names(inListAt: .savesRefused)
            // The records whose fetched version was stored, or whose deletion deleted them (a version skipped, as
            // this device's own come back, says nothing of a later save refused for good).
            var heardOf: Set<String> = []
            // The names deleted here that this page brings back, as a deletion or as a record while no delete of this
            // device waits (one waiting is still to land, and to come back), are forgotten with it.
            var broughtBack = deletedHere.intersection(deletions.map(\.recordName))
            for fetched in modifications {
                let cloud = fetched.containerRecord
                if reconciling { try transaction.markSeen(cloud.recordID.recordName) }
                // Only user-created types belong in this store; anything else in the zone is not ours to take.
                guard partition.partition(of: cloud.recordType) == .userCreated else { continue }
                let name = cloud.recordID.recordName
                let pending = try transaction.pendingChange(named: name)
                if pending?.kind == .delete { continue }  // A local delete wins; it is sent next.
                if deletedHere.contains(name) { broughtBack.insert(name) }
                let local = try transaction.record(named: name)
                // Another client's record under the name of one of another type here: its fields are not this
                // type's, and the record here stays what it is.
                if let local, local.type != cloud.recordType {
                    refuse(name, "a \(cloud.recordType) on the server, a \(local.type) here; not stored on this device")
                    continue
                }
                // The server's copy of a version this device already has (its own save, come back).
                if local != nil, try transaction.serverChangeTag(of: name) == cloud.recordChangeTag { continue }
                let server = RecordMapping.storedRecord(from: cloud, origin: user, existing: local)
                // Other clients write the container too: a record this device cannot store is left on the server.
                if let problem = server.storageProblem(serverFields: cloud.systemFields) {
                    refuse(name, "\(problem); not stored on this device")
                    continue
                }
                if let setAside = RecordMapping.unusableReservedValue(of: cloud) {
                    refuse(name, "\(setAside); read as written at the server's times", stored: true)
                } else {
                    named[name] = nil
                }
                guard let local, let pending else {
                    // Paused for the user's deletion of the zone, a record this device holds is on no server any
                    // more, sent or not: another device's copy uploaded again since is merged with it, by the rule,
                    // and what of this device's wins waits to go up. (Taken as it was, an older copy overwrote an
                    // edit of this device's that had landed before the purge: seed 787 of the delegate's build.) So
                    // is one whose save the server refused for good: the server never saw it (seed 713).
                    var taken = server
                    var madeAnew = false
                    if let local, pausedForUserDeletion || savesRefused.contains(name) {
                        // Read before the server's change tag is stored with it.
                        madeAnew = try Self.isMadeAnew(
                            name, marked: notLanded, mayBeOnServer: mayBeOnServer, in: transaction)
                        let merge = resolver.mergeOutcome(local: local, server: server)
                        if merge.tooLarge { tooLarge.append(name) }
                        taken = merge.record
                    }
                    try transaction.putRecord(taken, serverFields: cloud.systemFields)
                    heardOf.insert(name)
                    let queued = !taken.matchesForUpload(server)
                    if queued { try transaction.queue(.save, name: name, type: cloud.recordType) }
                    if let local, queued, madeAnew {
                        // Still the record made anew while the merge kept its fields and its save waits (as when
                        // a change of it waits): a deletion of the older one fetched before it lands leaves it.
                        let marked = try Self.keepMadeAnewMark(
                            transaction, name, local: local, merged: taken, pendingKept: true)
                        if marked { notLanded.insert(name) } else { notLanded.remove(name) }
                    } else if notLanded.contains(name) {
                        // Another record now under the name, with nothing of this device's waiting: no longer one made
                        // anew here.
                        notLanded.remove(name)
                        try transaction.removeName(name, fromListAt: .creationsNotLanded)
                    }
                    continue
                }
                // A record made anew here (never gone up) meets an older one under its name: it takes its change tag
                // to write over it, and stays a record made anew until it lands (as when its save meets it).
                let madeAnew = try Self.isMadeAnew(
                    name, marked: notLanded, mayBeOnServer: mayBeOnServer, in: transaction)
                // Too large to upload, the merge keeps the server's version (the app's engine does the same).
                let merge = resolver.mergeOutcome(local: local, server: server)
                if merge.tooLarge { tooLarge.append(name) }
                let merged = merge.record
                try transaction.putRecord(merged, serverFields: cloud.systemFields)
                heardOf.insert(name)
                let sendsAgain = !merged.matchesForUpload(server)
                if !sendsAgain {
                    try transaction.removePendingChange(named: name, ifRevision: pending.revision)
                }
                if madeAnew {
                    let marked = try Self.keepMadeAnewMark(
                        transaction, name, local: local, merged: merged, pendingKept: sendsAgain)
                    if marked { notLanded.insert(name) } else { notLanded.remove(name) }
                }
            }
            if !broughtBack.isEmpty {
                try transaction.updateNames(inListAt: .namesDeletedHere) { $0.subtract(broughtBack) }
            }
            for deletion in deletions {
                // A record made here anew under the name of one deleted (this device's own delete, come back, or
                // another's): no save of it ever left, so the deletion is of its predecessor, and it stays. So does
                // one made anew that took an older record's change tag to write over it, until it lands. Whether a
                // save of it still waits does not matter: one the server refused for good stays on the device, and a
                // deletion of its predecessor heard again (a fetch from no state) deleted it (seed 700 of the
                // delegate's build).
                let name = deletion.recordName
                named[name] = nil
                if try transaction.containsRecord(named: name),
                    try Self.isMadeAnew(name, marked: notLanded, mayBeOnServer: mayBeOnServer, in: transaction)
                {
                    continue
                }
                try transaction.deleteRecord(named: deletion.recordName)
                try transaction.removePendingChange(named: deletion.recordName, ifRevision: nil)
                heardOf.insert(name)
            }
            // The server spoke of a record refused for good (merged above, or deleted): no longer named.
            if !savesRefused.isDisjoint(with: heardOf) {
                try transaction.updateNames(inListAt: .savesRefused) { $0.subtract(heardOf) }
            }
            try transaction.updateFetchedRecordProblems { $0 = named }
            return problems
        }
        guard let problems else {
            hearAgainFromTheStateBefore(afterList: false)
            return
        }
        forgetUnwrittenFetch()
        for name in tooLarge { noteMergeTooLarge(name) }
        for refused in problems {
            if !refused.stored {
                note(
                    MirrorError(
                        .fetchedRecordRefused, "a fetched record was not stored: \(refused.name): \(refused.problem)"))
            }
            noteFetchedRecordProblem(refused.name, refused.problem)
        }
        // A version this device did not store (another type here, a value it cannot take) carries no tag here.
        let fetched = Set(modifications.map(\.recordID.recordName) + deletions.map(\.recordName))
            .subtracting(problems.filter { !$0.stored }.map(\.name))
        // Fetched, a record carries its tag (or is gone): the sets that stood in for one let it go.
        if !bookkeeping.firstSendUnanswered.isDisjoint(with: fetched)
            || !bookkeeping.untaggedMayBeOnServer.isDisjoint(with: fetched)
        {
            bookkeeping.firstSendUnanswered.subtract(fetched)
            bookkeeping.untaggedMayBeOnServer.subtract(fetched)
            persistBookkeeping()
        }
    }

    /// A page, or a list of the database's changes, that the store could not write: the engine's token is past it, so
    /// it is heard again from the state last kept, which is before it (the engine's later events are ignored, as a
    /// replaced engine's are). At once, a few times in a row (``pageRefetchLimit``); after that, at the engine's next
    /// fetch, so that a store that refuses every write (a full disk) is not asked again and again, while no state of
    /// the engine past it is kept (``engineBehind``): a relaunch starts from before it too. (Passed over after a few,
    /// as before, the page was missing for as long as the process lived, and for good once a later state was kept:
    /// the swarm's full disks.) Until it is written, the status says waiting, and why (``fetchUnwritten``).
    ///
    /// - Parameter afterList: Whether it was a list of the database's changes rather than a page of the zone.
    func hearAgainFromTheStateBefore(afterList: Bool) {
        pageWriteFailures += 1
        // A page waiting stays the thing waited for: a list's failure after it does not make it a list's.
        fetchUnwritten = lastWriteFailureOutcome.map { ($0, afterList && fetchUnwritten?.list != false) }
        if pageWriteFailures <= Self.pageRefetchLimit {
            initializeSyncEngine()
        } else {
            engineBehind = true
        }
    }

    /// Nothing of a fetch is left unwritten (a page of the zone was written, a whole fetch went through, or the data
    /// is another account's now): no page refused in a row, and no wait for room in the status.
    func forgetUnwrittenFetch() {
        pageWriteFailures = 0
        fetchUnwritten = nil
    }

    /// Whether a whole fetch of the zone is under way whose end deletes what it did not return: kept in the store
    /// (``MirrorBookkeeping/reconcileOnFullFetch``), so that it ends in the transaction of its deletions.
    ///
    /// - Parameter transaction: A transaction of the store.
    /// - Returns: Whether the reconciling is pending.
    /// - Throws: What reading the store's state throws.
    static func reconcilePending(_ transaction: SyncTransaction) throws -> Bool {
        try transaction.engineState().reconcileOnFullFetch
    }

    /// Ends a pending reconciling: deletes the data's records the server confirmed once and that the fetch since it
    /// began did not return (and that wait for no save), in the transaction that ends it. Held apart (in the
    /// bookkeeping, written after), a crash between the two left it pending with nothing remembered as seen, and a
    /// later fetch of a few records deleted everything else (the swarm's seed 3100).
    ///
    /// - Parameter what: What the write does, for its error.
    /// - Returns: The records deleted, or `nil` when no reconciling was pending or the store could not be written.
    func endReconciling(_ what: String) -> [String]? {
        let account = dataAccount
        let removed = write(what) { transaction -> [String]? in
            guard try Self.reconcilePending(transaction) else { return nil }
            let removed = try transaction.deleteSyncedRecordsNotSeen(of: account)
            try transaction.updateEngineState { $0.reconcileOnFullFetch = false }
            return removed
        }
        return removed ?? nil
    }

    /// The end of a fetch of the zone: when a purge may have been a second one, the records the server confirmed
    /// once and did not return (and that wait for no save) are deleted.
    ///
    /// - Parameter event: The end of the fetch.
    func handleDidFetchRecordZoneChanges(_ event: PSSyncEngine.Event.DidFetchRecordZoneChanges) {
        guard event.zoneID.zoneName == zoneID.zoneName, event.error == nil else { return }
        noteZoneCaughtUp()
        guard let removed = endReconciling("delete what the zone no longer holds") else { return }
        bookkeeping.firstSendUnanswered.subtract(removed)
        bookkeeping.untaggedMayBeOnServer.subtract(removed)
        persistBookkeeping()
    }

    /// A deletion of the zone: by the user in Settings or by an app, sync pauses and everything here stays, until the
    /// user turns sync on again (``userTurnedSyncOn()``); in an encrypted-data reset, everything here goes up again.
    /// A save that found the zone missing waits for this news (``MirrorBookkeeping/zoneMissingHeard``).
    ///
    /// - Parameters:
    ///   - event: The database's changes.
    ///   - syncEngine: The engine.
    func handleFetchedDatabaseChanges(_ event: PSSyncEngine.Event.FetchedDatabaseChanges, syncEngine: PSSyncEngine) {
        // A write this list needs that fails (a full disk) must not lose the list: the engine's token goes past it
        // with the next state, so the list is heard again from the state before it, as a page is
        // (``pageRefetchLimit``), with the bookkeeping as it was. (Passed over, an encrypted-data reset whose records
        // could not be queued again was never answered, and they stayed off the server: the swarm's full disks,
        // seeds 1207, 1448, 2356.)
        let bookkeepingBefore = bookkeeping
        let failedBefore = storeWritesFailed
        let zoneDeletedHere = event.deletions.contains { $0.zoneID.zoneName == zoneID.zoneName }
        // Stopped at its first failed write: a later one (the disk had room again) would act on what the failed one
        // left undone (a reconciling ended after a reset whose records were not queued again deleted them all).
        var failed: Bool { storeWritesFailed > failedBefore }
        defer {
            if failed {
                bookkeeping = bookkeepingBefore
                // A write of this list may have written the bookkeeping file ahead of memory (a pause): back.
                persistBookkeeping()
                hearAgainFromTheStateBefore(afterList: true)
            } else {
                pageWriteFailures = 0
                // A list written says nothing of a page of the zone still to write, unless it deleted the zone: no
                // page of the zone deleted will ever come (over the real CKSyncEngine, whose fetches never say they
                // went through, the status waited for room for ever).
                if fetchUnwritten?.list == true || zoneDeletedHere { fetchUnwritten = nil }
            }
        }
        var changed = false
        let deletions = event.deletions.filter { $0.zoneID.zoneName == zoneID.zoneName }
        // Listed as changed, the zone is there now (a deletion in the same list came first).
        let zoneListed = event.modifications.contains { $0.zoneID.zoneName == zoneID.zoneName }
        if bookkeeping.zoneMissingHeard && !deletions.isEmpty {
            // The news a refused save waited for: the deletions below say who deleted the zone. (The zone listed with
            // no deletion says nothing of who did: another device created it again since, and the deletion is before
            // this list; the end of the fetch pauses then, ``handleDidFetchChanges(_:)``.)
            bookkeeping.zoneMissingHeard = false
            changed = true
        }
        for deletion in deletions {
            // The user's deletion in Settings that this device heard of from a refused save, and turned sync on again
            // after, is still to be reported (the list reports in order, on one page or several): a deletion by an
            // app listed before it is older than the user's word, which covers it (it would pause again for a
            // deletion the user has answered).
            let consentedPurgeToCome =
                (bookkeeping.zonePurgedByUser && bookkeeping.purgeHeardFromRefusal)
                || bookkeeping.purgedReportsHeard > 0
            if consentedPurgeToCome, deletion.reason == .deleted, bookkeeping.deletedReportsHeard == 0 { continue }
            switch deletion.reason {
            // (An app's deletion is never taken for old news, though this device may have created the zone after
            // a save found it missing (never known): the list cannot tell a deletion before that creation from one
            // after it. Taken as old news, a new one went unanswered: it deleted here what went up since (seed
            // 3780), and let this device go on syncing into a zone the user had not answered for (5357). It pauses
            // below: at worst, the user is asked once more.)
            case .purged where bookkeeping.purgedReportsHeard > 0:
                // The purge this device heard of from a refused save (`userDeletedZone`), that the user turned sync on
                // again after and the zone was created again, or a second purge: the list cannot tell. What the server
                // no longer holds of what it confirmed goes: at the end of the zone's fetch, whole (the engine forgot
                // its token), when the zone is there now; at once, below, when it is not. Deleting it all now would
                // lose what went up since the first; keeping it all would keep what a second purge took.
                bookkeeping.purgedReportsHeard -= 1
                // Paused for a later deletion in this list, nothing here is deleted: the user's word uploads it all.
                if !bookkeeping.pausedForUserDeletion {
                    write("start remembering what the zone's fetch returns") { transaction in
                        try transaction.clearSeenRecords()
                        try transaction.updateEngineState { $0.reconcileOnFullFetch = true }
                    }
                    if failed { return }
                }
            case .purged where bookkeeping.zonePurgedByUser && bookkeeping.purgeHeardFromRefusal:
                // The report of the deletion a refused save told of, which the user turned sync on again after,
                // before this device created the zone again: the one consented to, not a new one.
                bookkeeping.purgeHeardFromRefusal = false
            case .purged, .deleted:
                // The user deleted the app's data in Settings, or an app deleted the zone (another device's, another
                // client): nothing goes up again without the user's word, and nothing here is deleted. The app's own
                // engine does the same: a device cannot tell an app's deletion made at the user's wish from one made
                // by mistake, and what it holds is the user's.
                if deletion.reason == .deleted && bookkeeping.deletedReportsHeard > 0 {
                    // Whether this is the report a refusal awaited or a later deletion, the pause covers both.
                    bookkeeping.deletedReportsHeard -= 1
                }
                pauseForUserDeletion(heardFromRefusal: false, reportedReason: deletion.reason, syncEngine: syncEngine)
                if failed { return }
            case .encryptedDataReset:
                // The server lost them; this device still has them: upload them all again, as new records, into
                // the zone created again. (Gone, the zone is no longer known, even if the store cannot be written
                // below: a later refusal then creates it rather than wait for news that came.)
                bookkeeping.zoneKnown = false
                let user = UserRecordID(recordName: bookkeeping.accountRecordName ?? "")
                // Every record held may be on the server again soon (each device uploads its copy): without its tag
                // here, it stays one that may be.
                let held = write("queue everything again after the reset") { transaction -> Set<String> in
                    try transaction.clearServerFields()
                    try transaction.queueUnconfirmedRecords(of: user)
                    return try transaction.recordNames()
                }
                guard let held else { return }
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
        let zoneDeleted = !deletions.isEmpty
        if zoneListed && !bookkeeping.zoneKnown {
            bookkeeping.zoneKnown = true
            changed = true
        }
        // Listed, the zone is there now (after any deletion in this list): nothing is to be created.
        if zoneListed { dropZoneSave(from: syncEngine) }
        if zoneDeleted && !zoneListed {
            // Deleted after the token and not created again since (it would be listed as changed): the server holds
            // nothing of the zone, so nothing it confirmed is there. (A reset after the purge, in this list, has
            // already cleared the change tags and queued everything again: nothing goes then.)
            guard !failed else { return }
            if let removed = endReconciling("delete what the deleted zone held") {
                bookkeeping.firstSendUnanswered.subtract(removed)
                bookkeeping.untaggedMayBeOnServer.subtract(removed)
                changed = true
            }
        }
        // Listed, the zone is there again (even after a deletion in this list): a later refusal is news, not the
        // deletion consented to (taken for it, the refusal created a zone known, unasked).
        if zoneListed && bookkeeping.zonePurgedByUser {
            bookkeeping.zonePurgedByUser = false
            changed = true
        }
        if zoneThere && bookkeeping.deletedReportsHeard + bookkeeping.purgedReportsHeard > 0 {
            // The list is past the deletions (it lists changes in order): their reports are not to come.
            bookkeeping.deletedReportsHeard = 0
            bookkeeping.purgedReportsHeard = 0
            changed = true
        }
        if changed && !failed { persistBookkeeping() }
    }

    /// The end of a fetch of the database's changes. A save that found the zone missing before the fetch began waits
    /// for the list to say who deleted it; a fetch that read the list to its end without a word of the zone (its
    /// deletion, or the zone there again) began past the deletion (a list read whole, from no change token, reports
    /// no deletion). Who deleted the zone cannot be told then: sync pauses for the user's word, as the app's own
    /// engine pauses for any zone it knew gone.
    ///
    /// - Parameter syncEngine: The engine.
    func handleDidFetchChanges(_ syncEngine: PSSyncEngine) {
        if bookkeeping.zoneMissingHeard && fetchBeganWithZoneMissing && syncEngine.lastFetchSucceeded {
            pauseForUserDeletion(heardFromRefusal: false, syncEngine: syncEngine)
        }
        // A change an error took out of the engine goes again, now that the fetch brought any deletion of the zone.
        addUnsentChanges(to: syncEngine)
        // A fetch of this engine that ended well wrote every page it brought (one it could not write replaced the
        // engine): no failure in a row is left, even with no page to write (another account's empty zone after a
        // start afresh). Left counted, the first download never read as done: syncing for ever (swarm seed 9532).
        if syncEngine.lastFetchSucceeded { forgetUnwrittenFetch() }
        noteDownloadCaughtUp(syncEngine)
    }
}

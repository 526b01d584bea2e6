import DeviceStore
import PrivateSync
import PrivateSyncEngine

extension PartitionMirror {
    /// The codes of a failed save that do not say whether the server applied it: CloudKit's `serverResponseLost`
    /// is "applied, but the answer was lost"; an internal error says nothing.
    static let failuresThatMayHaveLanded: Set<PSError.Code> = [.serverResponseLost, .internalError]

    /// The codes of a failed delete that say the record is not on the server: it is gone, or its zone is (deleted
    /// by an app, or by the user in Settings). The delete is done.
    static let deleteFindsNothing: Set<PSError.Code> = [.unknownItem, .zoneNotFound, .userDeletedZone]

    /// What a send's answer teaches: saves and deletes confirmed leave the store's queue (unless written again
    /// since), a conflict is merged, a zone never there is created (one the user deleted in Settings pauses sync
    /// until the user turns it on again; one this device knew waits for the database's list to say who deleted it),
    /// a record gone is deleted unless an edit made here waits for it, a save refused for good is not sent again.
    ///
    /// - Parameters:
    ///   - event: The answer.
    ///   - syncEngine: The engine.
    func handleSentRecordZoneChanges(_ event: PSSyncEngine.Event.SentRecordZoneChanges, syncEngine: PSSyncEngine) {
        var newRecordChanges: [PSSyncEngine.PendingRecordZoneChange] = []
        var newDatabaseChanges: [PSSyncEngine.PendingDatabaseChange] = []
        if !event.savedRecords.isEmpty && bookkeeping.zonePurgedByUser {
            // A save landed: the zone is there again, and a later deletion is news.
            bookkeeping.zonePurgedByUser = false
        }
        // Known before this answer: a send of several requests may meet the zone missing in one and there in a later
        // one (another device created it in between), and a refusal it answers is no sign of a deletion (seed 4566).
        let zoneKnown = bookkeeping.zoneKnown
        // A save landed: the zone is there, and a later `zoneNotFound` says someone deleted it.
        if event.savedRecords.contains(where: { $0.recordID.zoneID.zoneName == zoneID.zoneName }) {
            bookkeeping.zoneKnown = true
            dropZoneSave(from: syncEngine)
        }
        for failed in event.failedRecordSaves {
            let name = failed.record.recordID.recordName
            guard bookkeeping.firstSendUnanswered.contains(name) else { continue }
            if Self.failuresThatMayHaveLanded.contains(failed.error.code) {
                bookkeeping.firstSendMayHaveLanded.insert(name)
            } else if !bookkeeping.firstSendMayHaveLanded.contains(name) {
                // This save did not land, and no earlier one may have: the record is still one that never went up.
                // (After an attempt whose outcome is unknown, a later refusal proves nothing of that attempt.)
                bookkeeping.firstSendUnanswered.remove(name)
            }
        }
        let user = bookkeeping.accountRecordName.map(UserRecordID.init(recordName:))
        let resolver = resolver
        // First saves that may have landed: a conflict of one may be with this device's own save.
        let mayBeOnServer = bookkeeping.firstSendUnanswered.union(bookkeeping.untaggedMayBeOnServer)
        var heardOfPurge = false
        var goneHere: [String] = []
        var untaggedHere: [String] = []
        var tooLarge: [String] = []
        var zoneNotFound = false
        var zoneMissing = false
        let purgedBefore = bookkeeping.zonePurgedByUser
        let answered: Void? = write("record what the server answered") { transaction in
            var landedHere: Set<String> = []
            for saved in event.savedRecords {
                let name = saved.recordID.recordName
                guard let local = try transaction.record(named: name) else { continue }
                let cloud = saved.containerRecord
                guard let fields = cloud.systemFields else { continue }
                let landed = RecordMapping.storedRecord(from: cloud, origin: user, existing: local)
                if let pending = try transaction.pendingChange(named: name), pending.kind == .save,
                    local.matchesForUpload(landed)
                {
                    try transaction.removePendingChange(named: name, ifRevision: pending.revision)
                }
                // The change tag the next save must carry (an edit made since goes up on top of it).
                try transaction.setServerFields(fields, of: name)
                landedHere.insert(name)
            }
            // A record made anew that wrote over an older one has landed: a deletion fetched from now on is of it.
            if !landedHere.isEmpty {
                try transaction.updateNames(inListAt: .creationsNotLanded) { $0.subtract(landedHere) }
            }
            for deleted in event.deletedRecordIDs {
                if try transaction.pendingChange(named: deleted.recordName)?.kind == .delete {
                    try transaction.removePendingChange(named: deleted.recordName, ifRevision: nil)
                }
            }
            for (deleted, error) in event.failedRecordDeletes where Self.deleteFindsNothing.contains(error.code) {
                // Already gone (the record, or its whole zone): the delete is done. Kept queued, it went again after
                // every fetch, refused every time, and the status said syncing for ever.
                if try transaction.pendingChange(named: deleted.recordName)?.kind == .delete {
                    try transaction.removePendingChange(named: deleted.recordName, ifRevision: nil)
                }
            }
            // Refused for good now, and spoken of by the server since a refusal (landed, or answered with its
            // version): the list a fetched version of a refused record is merged by (``EngineState/savesRefused``).
            var refusedNow: Set<String> = []
            var spokenOf = landedHere
            for failed in event.failedRecordSaves {
                let id = failed.record.recordID
                let name = id.recordName
                var clearServerFields = false
                switch failed.error.code {
                case .serverRecordChanged:
                    spokenOf.insert(name)
                    guard let serverRecord = failed.error.serverRecord, let local = try transaction.record(named: name)
                    else { continue }
                    let cloud = serverRecord.containerRecord
                    let server = RecordMapping.storedRecord(from: cloud, origin: user, existing: local)
                    guard server.storageProblem(serverFields: cloud.systemFields) == nil else { continue }
                    // A record made anew here (marked, or with no change tag and no first save of it that may have
                    // landed) meets an older record under its name: deleted here and written again before the delete
                    // went up (the save took the delete's place), or another's. It takes that record's change tag to
                    // write over it, and stays a record made anew until it lands while the merge keeps its fields:
                    // a deletion fetched meanwhile is of the older one.
                    let madeAnew = try Self.isMadeAnew(
                        name, marked: transaction.names(inListAt: .creationsNotLanded), mayBeOnServer: mayBeOnServer,
                        in: transaction)
                    let merge = resolver.mergeOutcome(local: local, server: server)
                    if merge.tooLarge { tooLarge.append(name) }
                    let merged = merge.record
                    try transaction.putRecord(merged, serverFields: cloud.systemFields)
                    if madeAnew {
                        try Self.keepMadeAnewMark(
                            transaction, name, local: local, merged: merged,
                            pendingKept: !merged.matchesForUpload(server))
                    }
                    let pending = try transaction.pendingChange(named: name)
                    if merged.matchesForUpload(server) {
                        // The server's edit was the later one and is now ours: nothing of ours is left to send.
                        if let pending, pending.kind == .save {
                            try transaction.removePendingChange(named: name, ifRevision: pending.revision)
                        }
                    } else {
                        if pending == nil { try transaction.queue(.save, name: name, type: local.type) }
                        newRecordChanges.append(.saveRecord(id))
                    }
                case .zoneNotFound where zoneKnown && !purgedBefore:
                    // Someone deleted the zone this device knew: an app or the user (sync waits for the user's word) or
                    // an encrypted-data reset (everything goes up again). Only the database's list says which, and
                    // until it does, nothing is sent and the record stays queued in the store. Created again here, it
                    // would undo a deletion the user made elsewhere, as the app's own engine never does.
                    zoneMissing = true
                case .zoneNotFound:
                    // A zone never there (or one the user turned sync on again for): create it and send the record
                    // again, without its stale change tag. (The database's list may report a deletion after the zone is
                    // created again: old news then.)
                    zoneNotFound = true
                    newDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: id.zoneID)))
                    newRecordChanges.append(.saveRecord(id))
                    clearServerFields = true
                case .userDeletedZone where purgedBefore:
                    // The user deleted the zone and turned sync on again since: the zone is created again for it.
                    newDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: id.zoneID)))
                    newRecordChanges.append(.saveRecord(id))
                    clearServerFields = true
                case .userDeletedZone:
                    // The first news of it here (or a save in flight when it came): sync pauses (below), and the
                    // record stays queued in the store for the user's word.
                    heardOfPurge = true
                case .unknownItem:
                    spokenOf.insert(name)
                    if try transaction.pendingChange(named: name)?.kind == .save,
                        try transaction.containsRecord(named: name)
                    {
                        // Deleted on the server, edited here: upload the edit again, as a new record.
                        newRecordChanges.append(.saveRecord(id))
                        clearServerFields = true
                    } else {
                        // Deleted on the server, and nothing here is newer than what was deleted: the delete wins.
                        goneHere.append(name)
                        try transaction.deleteRecord(named: name)
                        try transaction.removePendingChange(named: name, ifRevision: nil)
                    }
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated,
                    .operationCancelled:
                    // The engine retries these by itself.
                    break
                case .serverRejectedRequest, .limitExceeded:
                    // Refused for good: sending it again would be refused again. The record stays on the device,
                    // named, so that a version of it fetched later is merged with it rather than taken whole.
                    try transaction.removePendingChange(named: name, ifRevision: nil)
                    refusedNow.insert(name)
                default:
                    // Dropped by the engine (quota, a lost answer, a failed batch): still in the store's queue, it
                    // goes again after the next fetch.
                    break
                }
                if clearServerFields, let local = try transaction.record(named: name) {
                    // Confirmed once, it may still be on the server without its tag here.
                    if try transaction.serverChangeTag(of: name) != nil { untaggedHere.append(name) }
                    try transaction.putRecord(local, serverFields: nil)
                }
            }
            if !refusedNow.isEmpty || !spokenOf.isEmpty {
                try transaction.updateNames(inListAt: .savesRefused) {
                    $0.subtract(spokenOf)
                    $0.formUnion(refusedNow)
                }
            }
        }
        if answered != nil {
            // The saves' change tags are in the store now: their records no longer need the bookkeeping's word.
            bookkeeping.firstSendUnanswered.subtract(event.savedRecords.map(\.recordID.recordName))
            bookkeeping.firstSendMayHaveLanded.subtract(event.savedRecords.map(\.recordID.recordName))
        }
        bookkeeping.untaggedMayBeOnServer.subtract(goneHere)
        bookkeeping.firstSendUnanswered.subtract(goneHere)
        bookkeeping.untaggedMayBeOnServer.formUnion(untaggedHere)
        for name in tooLarge { noteMergeTooLarge(name) }
        if zoneNotFound { bookkeeping.zoneNotFoundHeard = true }
        noteOutcome(of: event)
        if heardOfPurge {
            pauseForUserDeletion(heardFromRefusal: true, syncEngine: syncEngine)
        } else if zoneMissing && !bookkeeping.pausedForUserDeletion && !bookkeeping.zoneMissingHeard {
            bookkeeping.zoneMissingHeard = true
            withdrawChangesFromTheEngine(syncEngine)
        }
        // Paused for the user's deletion (now, or by a fetch while this send was in flight), or waiting to learn who
        // deleted the zone, nothing goes to the engine: the store keeps every change queued.
        if sendsChanges {
            syncEngine.state.add(pendingDatabaseChanges: newDatabaseChanges)
            syncEngine.state.add(pendingRecordZoneChanges: newRecordChanges)
        }
        persistBookkeeping()
    }

    /// What the status says of the last send (``MirrorBookkeeping/quotaExceededHeard``,
    /// ``MirrorBookkeeping/sendWaitingCode``): a refusal for a full storage, or a transient failure, until a save or
    /// a delete goes through.
    ///
    /// - Parameter event: The answer.
    func noteOutcome(of event: PSSyncEngine.Event.SentRecordZoneChanges) {
        let codes = event.failedRecordSaves.map(\.error.code) + event.failedRecordDeletes.values.map(\.code)
        let transient = codes.first(where: Self.isTransient)
        // The server answered (a save or a delete went through, or it refused one for a reason no retry cures): the
        // network and the server are back. (A change cancelled here, or held for the account, says nothing of them.)
        let answered =
            !event.savedRecords.isEmpty || !event.deletedRecordIDs.isEmpty
            || codes.contains { !PSSyncEngine.isRetryable($0) }
        if codes.contains(.quotaExceeded) {
            bookkeeping.quotaExceededHeard = true
        } else if !event.savedRecords.isEmpty {
            // A save landed: the storage is not full now.
            bookkeeping.quotaExceededHeard = false
        }
        if let transient {
            bookkeeping.sendWaitingCode = transient.rawValue
        } else if answered {
            bookkeeping.sendWaitingCode = nil
        }
    }

    /// Whether a failure is one the engine retries by itself that says the device waits on the network or the
    /// server (offline, busy, rate-limited): not the account's, which the status reads live, nor a cancellation.
    ///
    /// - Parameter code: The failure's code.
    /// - Returns: Whether the status says waiting for it.
    static func isTransient(_ code: PSError.Code) -> Bool {
        PSSyncEngine.isRetryable(code)
            && code != .operationCancelled && code != .notAuthenticated && code != .accountTemporarilyUnavailable
    }

    /// The zone created again: after the user deleted it, a later `userDeletedZone` is news again; after this
    /// device heard of a deletion from a refused save, the database's list will report that deletion later.
    ///
    /// - Parameter event: The answer.
    func handleSentDatabaseChanges(_ event: PSSyncEngine.Event.SentDatabaseChanges) {
        guard event.savedZones.contains(where: { $0.zoneID.zoneName == zoneID.zoneName }) else { return }
        let before = bookkeeping
        bookkeeping.zoneKnown = true
        if bookkeeping.zonePurgedByUser {
            bookkeeping.zonePurgedByUser = false
            if bookkeeping.purgeHeardFromRefusal {
                bookkeeping.purgeHeardFromRefusal = false
                bookkeeping.purgedReportsHeard += 1
            }
        }
        if bookkeeping.zoneNotFoundHeard {
            // (A zone no one had created yet answers `zoneNotFound` too: its count then makes a later `deleted`
            // reconciled rather than wiped, which keeps what the server still holds and loses nothing.)
            bookkeeping.zoneNotFoundHeard = false
            bookkeeping.deletedReportsHeard += 1
        }
        if bookkeeping != before { persistBookkeeping() }
    }
}

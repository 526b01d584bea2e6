import Synchronization

extension PSSyncEngine {
    /// What one send has done so far.
    struct SendProgress {
        /// Records already sent (or refused) in this send: each goes at most once, so a change the delegate adds
        /// again after a failure waits for the next send, as on a device.
        var attemptedRecords = Set<PSRecord.ID>()
        /// Zones already sent (or refused) in this send.
        var attemptedZones = Set<PSRecordZone.ID>()
        /// Every item that failed, for the error the send throws.
        var failures = PSError.ItemErrors()
        /// A retryable failure of an item, which keeps it pending: the send is tried again.
        var retryableFailure: PSError?
        /// The request error that ended the send.
        var stop: PSError?
    }

    /// Sends pending changes, as `CKSyncEngine.sendChanges(_:)`.
    ///
    /// The order of events: `willSendChanges`; the pending zone changes, each request followed by
    /// `sentDatabaseChanges`; then, until the delegate's ``PSSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``
    /// returns `nil`, each batch sent and followed by `sentRecordZoneChanges` (zone changes the delegate added in
    /// between go first); `didSendChanges`; a `stateUpdate`. With nothing to send in the scope, nothing is posted.
    ///
    /// What leaves the pending list: a change the server accepted (unless the delegate added it again meanwhile),
    /// and a change that failed with an error no retry cures (`serverRecordChanged`, `unknownItem`, `zoneNotFound`,
    /// `batchRequestFailed`, `limitExceeded` …): the delegate adds it again when it wants it sent. A change that
    /// failed with one of the errors CloudKit retries by itself stays. Within one send each record goes at most once.
    ///
    /// - Parameter options: The changes to send.
    /// - Throws: ``PSError``: the request error that ended the send (the network, the account: nothing more was
    ///   sent); `partialFailure` with ``PSError/partialErrorsByItemID`` when items failed; `operationCancelled`
    ///   after ``cancelOperations()``; ``PSSyncEngineMisuse`` when awaited from inside the delegate's
    ///   `handleEvent`. Returns only after every event it posted was handled.
    public func sendChanges(_ options: SendChangesOptions = SendChangesOptions()) async throws {
        if let forwarded { return try await forwarded.sendChanges(options) }
        try await operation("sendChanges(_:)") { generation in
            try await self.performSend(options, reason: .manual, generation: generation)
        }
    }

    /// Whether anything in `scope` waits to be sent.
    func hasWorkToSend(in scope: SendChangesOptions.Scope) -> Bool {
        state.contents.withLock { contents in
            contents.hasPendingUntrackedChanges
                || contents.pendingDatabaseChanges.contains { scope.contains($0.change) }
                || contents.pendingRecordZoneChanges.contains { scope.contains($0.change) }
        }
    }

    func performSend(_ options: SendChangesOptions, reason: SyncReason, generation: Int) async throws(PSError) {
        let user: UserRecordID
        do {
            user = try await usableAccount()
        } catch {
            scheduleRetry(.send, after: error)
            throw error
        }
        guard hasWorkToSend(in: options.scope) else {
            noteSuccess()
            return
        }
        let context = SendChangesContext(reason: reason, options: options)
        await deliver(.willSendChanges(Event.WillSendChanges(context: context)))
        var progress = SendProgress()
        while true {
            if isCancelled(generation) {
                progress.stop = Self.cancelledError
                break
            }
            if let stop = await sendDatabaseChanges(in: options.scope, user: user, progress: &progress) {
                progress.stop = stop
                break
            }
            if isCancelled(generation) {
                progress.stop = Self.cancelledError
                break
            }
            // The revisions before the delegate reads its data for the batch: an edit made from then on (while the
            // batch is built, or while the request is in flight) has a later one, and stays pending.
            let revisions = state.contents.withLock { contents in
                Dictionary(uniqueKeysWithValues: contents.pendingRecordZoneChanges.map { ($0.change, $0.revision) })
            }
            guard let offered = await callDelegate({ await $0.nextRecordZoneChangeBatch(context, syncEngine: self) }),
                let batch = offered
            else { break }
            let saves = batch.recordsToSave.filter { progress.attemptedRecords.insert($0.recordID).inserted }
            let deletes = batch.recordIDsToDelete.filter { progress.attemptedRecords.insert($0).inserted }
            guard !saves.isEmpty || !deletes.isEmpty else { break }
            if let stop = await sendRecords(
                saves, deleting: deletes, atomicByZone: batch.atomicByZone, splittable: batch.sizedByEngine,
                revisions: revisions, user: user, progress: &progress)
            {
                progress.stop = stop
                break
            }
        }
        if progress.stop == nil && progress.failures.isEmpty {
            state.contents.withLock { contents in
                if contents.hasPendingUntrackedChanges {
                    contents.hasPendingUntrackedChanges = false
                    contents.isDirty = true
                }
            }
        }
        await deliver(.didSendChanges(Event.DidSendChanges(context: context)))
        await deliverStateUpdateIfNeeded()
        if let stop = progress.stop {
            scheduleRetry(.send, after: stop)
            throw stop
        }
        if let retryable = progress.retryableFailure { scheduleRetry(.send, after: retryable) }
        guard progress.failures.isEmpty else {
            throw PSError(
                .partialFailure,
                userInfo: [
                    localizedDescriptionKey: "\(progress.failures.count) change(s) failed; see partialErrorsByItemID",
                    PSPartialErrorsByItemIDKey: progress.failures,
                ])
        }
        noteSuccess()
    }

    // MARK: Zones

    /// Sends the pending zone changes in scope not yet tried in this send, one request a zone, and posts their
    /// outcome.
    ///
    /// - Returns: The retryable request error that ends the send, or `nil`.
    private func sendDatabaseChanges(
        in scope: SendChangesOptions.Scope, user: UserRecordID, progress: inout SendProgress
    ) async -> PSError? {
        let pending = state.contents.withLock { contents in
            contents.pendingDatabaseChanges.filter {
                scope.contains($0.change) && !progress.attemptedZones.contains($0.change.zoneID)
            }
        }
        guard !pending.isEmpty else { return nil }
        var saved: [PSRecordZone] = []
        var failedSaves: [Event.SentDatabaseChanges.FailedZoneSave] = []
        var deleted: [PSRecordZone.ID] = []
        var failedDeletes: [PSRecordZone.ID: PSError] = [:]
        var outcomes: [(StateContents.Entry<PendingDatabaseChange>, PSError?)] = []
        var stop: PSError?
        for entry in pending {
            progress.attemptedZones.insert(entry.change.zoneID)
            var failure: PSError? = stop
            if failure == nil {
                do {
                    try PSDatabase.checkOwner(entry.change.zoneID)
                    try await sendZoneChange(entry.change, user: user)
                } catch {
                    failure = error
                    if Self.isRetryable(error.code) { stop = error }
                }
            }
            outcomes.append((entry, failure))
            switch entry.change {
            case .saveZone(let zone):
                if let failure {
                    failedSaves.append(Event.SentDatabaseChanges.FailedZoneSave(zone: zone, error: failure))
                } else {
                    saved.append(zone)
                }
            case .deleteZone(let zoneID):
                if let failure { failedDeletes[zoneID] = failure } else { deleted.append(zoneID) }
            }
            if let failure { progress.failures.zones[entry.change.zoneID] = failure }
        }
        state.update { contents in
            for (entry, failure) in outcomes where failure.map({ !Self.isRetryable($0.code) }) ?? true {
                contents.remove(entry.change, atRevision: entry.revision)
                if case .deleteZone(let zoneID) = entry.change, failure == nil { contents.forgetZone(zoneID) }
            }
            return false
        }
        await deliver(
            .sentDatabaseChanges(
                Event.SentDatabaseChanges(
                    savedZones: saved, failedZoneSaves: failedSaves, deletedZoneIDs: deleted,
                    failedZoneDeletes: failedDeletes)))
        return stop
    }

    private func sendZoneChange(_ change: PendingDatabaseChange, user: UserRecordID) async throws(PSError) {
        do {
            switch change {
            case .saveZone(let zone):
                _ = try await request(for: user) { () async throws(CloudError) -> [RecordZone] in
                    try await database.container.saveZones([RecordZone(zoneID: zone.zoneID.containerZoneID)])
                }
            case .deleteZone(let zoneID):
                try await request(for: user) { () async throws(CloudError) in
                    try await database.container.deleteZones([zoneID.containerZoneID])
                }
            }
        } catch {
            throw PSError(error)
        }
    }

    // MARK: Records

    /// The outcome of each item of a request.
    struct ItemOutcomes {
        var saves: [PSRecord.ID: Result<PSRecord, PSError>] = [:]
        var deletes: [PSRecord.ID: Result<Void, PSError>] = [:]
        /// The error of the request as a whole, when it failed as a whole.
        var requestError: PSError?

        mutating func fail(_ saves: [PSRecord], _ deletes: [PSRecord.ID], with error: PSError) {
            for record in saves { self.saves[record.recordID] = .failure(error) }
            for id in deletes { self.deletes[id] = .failure(error) }
        }

        mutating func merge(_ other: ItemOutcomes) {
            saves.merge(other.saves) { $1 }
            deletes.merge(other.deletes) { $1 }
            requestError = requestError ?? other.requestError
        }
    }

    /// Sends one batch, updates the pending list and posts `sentRecordZoneChanges`.
    ///
    /// - Returns: The retryable request error that ends the send, or `nil`.
    ///
    /// - Parameter revisions: The pending changes' revisions when the batch was asked for: only those leave.
    private func sendRecords(
        _ saves: [PSRecord], deleting deletes: [PSRecord.ID], atomicByZone: Bool, splittable: Bool,
        revisions pendingRevisions: [PendingRecordZoneChange: UInt64], user: UserRecordID,
        progress: inout SendProgress
    ) async -> PSError? {
        let revisions = (
            saves.map { pendingRevisions[.saveRecord($0.recordID)] },
            deletes.map { pendingRevisions[.deleteRecord($0)] }
        )
        var outcomes = ItemOutcomes()
        var sendable: ([PSRecord], [PSRecord.ID]) = ([], [])
        for record in saves {
            do {
                try PSDatabase.checkOwner(record.recordID.zoneID)
                sendable.0.append(record)
            } catch {
                outcomes.saves[record.recordID] = .failure(error)
            }
        }
        for id in deletes {
            do {
                try PSDatabase.checkOwner(id.zoneID)
                sendable.1.append(id)
            } catch {
                outcomes.deletes[id] = .failure(error)
            }
        }
        if !sendable.0.isEmpty || !sendable.1.isEmpty {
            outcomes.merge(
                await modify(
                    sendable.0, deleting: sendable.1, atomically: atomicByZone, splittable: splittable, user: user))
        }
        var savedRecords: [PSRecord] = []
        var failedSaves: [Event.SentRecordZoneChanges.FailedRecordSave] = []
        var deletedIDs: [PSRecord.ID] = []
        var failedDeletes: [PSRecord.ID: PSError] = [:]
        var leaving: [(PendingRecordZoneChange, UInt64?)] = []
        for (record, revision) in zip(saves, revisions.0) {
            switch outcomes.saves[record.recordID] {
            case .success(let saved)?:
                savedRecords.append(saved)
                leaving.append((.saveRecord(record.recordID), revision))
            case .failure(let error)?:
                failedSaves.append(Event.SentRecordZoneChanges.FailedRecordSave(record: record, error: error))
                note(error, for: record.recordID, &progress)
                if !Self.isRetryable(error.code) { leaving.append((.saveRecord(record.recordID), revision)) }
            case nil:
                continue
            }
        }
        for (id, revision) in zip(deletes, revisions.1) {
            switch outcomes.deletes[id] {
            case .success?:
                deletedIDs.append(id)
                leaving.append((.deleteRecord(id), revision))
            case .failure(let error)?:
                failedDeletes[id] = error
                note(error, for: id, &progress)
                if !Self.isRetryable(error.code) { leaving.append((.deleteRecord(id), revision)) }
            case nil:
                continue
            }
        }
        state.update { contents in
            // Only the revision that was sent leaves: a change added again while it was in flight stays.
            for (change, revision) in leaving where revision != nil {
                contents.remove(change, atRevision: revision)
            }
            return false
        }
        await deliver(
            .sentRecordZoneChanges(
                Event.SentRecordZoneChanges(
                    savedRecords: savedRecords, failedRecordSaves: failedSaves, deletedRecordIDs: deletedIDs,
                    failedRecordDeletes: failedDeletes)))
        if let requestError = outcomes.requestError, Self.isRetryable(requestError.code) { return requestError }
        return nil
    }

    private func note(_ error: PSError, for recordID: PSRecord.ID, _ progress: inout SendProgress) {
        progress.failures.records[recordID] = error
        if Self.isRetryable(error.code) { progress.retryableFailure = progress.retryableFailure ?? error }
    }

    /// One modify request with the default save policy. A request the server refuses as too large is split in two
    /// when the engine sized the batch; each half goes on its own, and a retryable failure of the first stops the
    /// second (its items fail with the same error, and stay pending).
    private func modify(
        _ saves: [PSRecord], deleting deletes: [PSRecord.ID], atomically: Bool, splittable: Bool,
        user: UserRecordID
    ) async -> ItemOutcomes {
        var outcomes = ItemOutcomes()
        let result: ModifyResult
        do {
            result = try await request(for: user) { () async throws(CloudError) -> ModifyResult in
                try await database.container.modifyRecords(
                    saving: saves.map(\.containerRecord), deleting: deletes.map(\.containerRecordID),
                    savePolicy: .ifServerRecordUnchanged, atomically: atomically)
            }
        } catch {
            let count = saves.count + deletes.count
            if error.code == .limitExceeded && splittable && count > 1 {
                let items: [Either] = saves.map { .save($0) } + deletes.map { .delete($0) }
                let halves = [Array(items[..<(count / 2)]), Array(items[(count / 2)...])]
                for half in halves {
                    let halfSaves = half.compactMap(\.record)
                    let halfDeletes = half.compactMap(\.deletion)
                    if let stop = outcomes.requestError, Self.isRetryable(stop.code) {
                        outcomes.fail(halfSaves, halfDeletes, with: stop)
                        continue
                    }
                    outcomes.merge(
                        await modify(
                            halfSaves, deleting: halfDeletes, atomically: atomically, splittable: true, user: user))
                }
                return outcomes
            }
            let failure = PSError(error)
            outcomes.fail(saves, deletes, with: failure)
            outcomes.requestError = failure
            return outcomes
        }
        for (id, outcome) in result.saveResults {
            outcomes.saves[PSRecord.ID(id)] = outcome.map(PSRecord.init).mapError(PSError.init)
        }
        for (id, outcome) in result.deleteResults {
            outcomes.deletes[PSRecord.ID(id)] = outcome.mapError(PSError.init)
        }
        return outcomes
    }

    /// A save or a delete of one request, for splitting it in order.
    private enum Either {
        case save(PSRecord)
        case delete(PSRecord.ID)

        var record: PSRecord? {
            if case .save(let record) = self { return record }
            return nil
        }

        var deletion: PSRecord.ID? {
            if case .delete(let id) = self { return id }
            return nil
        }
    }
}

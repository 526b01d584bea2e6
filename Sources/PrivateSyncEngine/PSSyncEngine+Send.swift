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
                || contents.pendingDatabaseChanges.contains { scope.contains($0) }
                || contents.pendingRecordZoneChanges.contains { scope.contains($0) }
        }
    }

    func performSend(_ options: SendChangesOptions, reason: SyncReason, generation: Int) async throws(PSError) {
        let user = try await usableAccount(retrying: .send)
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
            // The revision before the delegate reads its data for the batch: a change added from then on (an edit
            // made while the batch is built, or while the request is in flight) has a later one, and stays pending.
            let askedAt = state.contents.withLock { $0.nextRevision }
            guard let offered = await callDelegate({ await $0.nextRecordZoneChangeBatch(context, syncEngine: self) }),
                let batch = offered
            else { break }
            let saves = batch.recordsToSave.filter { progress.attemptedRecords.insert($0.recordID).inserted }
            let deletes = batch.recordIDsToDelete.filter { progress.attemptedRecords.insert($0).inserted }
            guard !saves.isEmpty || !deletes.isEmpty else { break }
            if let stop = await sendRecords(
                saves, deleting: deletes, atomicByZone: batch.atomicByZone, splittable: batch.sizedByEngine,
                askedAt: askedAt, user: user, progress: &progress)
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
            contents.pendingDatabaseChanges.entries.filter {
                scope.contains($0.change) && !progress.attemptedZones.contains($0.change.zoneID)
            }
        }
        guard !pending.isEmpty else { return nil }
        var saved: [PSRecordZone] = []
        var failedSaves: [Event.SentDatabaseChanges.FailedZoneSave] = []
        var deleted: [PSRecordZone.ID] = []
        var failedDeletes: [PSRecordZone.ID: PSError] = [:]
        var outcomes: [(PendingList<PendingDatabaseChange, PSRecordZone.ID>.Entry, PSError?)] = []
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
        let event = Event.SentDatabaseChanges(
            savedZones: saved, failedZoneSaves: failedSaves, deletedZoneIDs: deleted, failedZoneDeletes: failedDeletes)
        await post(.sentDatabaseChanges(event)) { contents in
            for (entry, failure) in outcomes where failure.map({ !Self.isRetryable($0.code) }) ?? true {
                contents.pendingDatabaseChanges.remove(entry.change, addedBefore: entry.revision + 1)
                if case .deleteZone(let zoneID) = entry.change, failure == nil { contents.forgetZone(zoneID) }
            }
        }
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

    /// The outcome of each item of a request, as the container reported it (converted only where the delegate
    /// sees it: the engine's cost per record is what `make bench`'s `engine_events_ratio` watches).
    struct ItemOutcomes {
        var saves: [RecordID: Result<Record, CloudError>] = [:]
        var deletes: [RecordID: Result<Void, CloudError>] = [:]
        /// The error of the request as a whole, when it failed as a whole.
        var requestError: CloudError?

        mutating func fail(_ saves: [PSRecord], _ deletes: [PSRecord.ID], with error: CloudError) {
            for record in saves { self.saves[record.recordID.containerRecordID] = .failure(error) }
            for id in deletes { self.deletes[id.containerRecordID] = .failure(error) }
        }

        mutating func merge(_ other: ItemOutcomes) {
            saves.merge(other.saves) { $1 }
            deletes.merge(other.deletes) { $1 }
            requestError = requestError ?? other.requestError
        }
    }

    /// Sends one batch, updates the pending list and posts `sentRecordZoneChanges`.
    ///
    /// - Parameter askedAt: The state's next revision when the batch was asked for: only changes added before it
    ///   leave the pending list.
    /// - Returns: The retryable request error that ends the send, or `nil`.
    private func sendRecords(
        _ saves: [PSRecord], deleting deletes: [PSRecord.ID], atomicByZone: Bool, splittable: Bool,
        askedAt: UInt64, user: UserRecordID, progress: inout SendProgress
    ) async -> PSError? {
        // A record of another owner's zone is refused here: this fake has no shared database.
        var refused: [PSRecord.ID: PSError] = [:]
        var sendable: ([PSRecord], [PSRecord.ID]) = ([], [])
        for record in saves {
            do {
                try PSDatabase.checkOwner(record.recordID.zoneID)
                sendable.0.append(record)
            } catch {
                refused[record.recordID] = error
            }
        }
        for id in deletes {
            do {
                try PSDatabase.checkOwner(id.zoneID)
                sendable.1.append(id)
            } catch {
                refused[id] = error
            }
        }
        var outcomes = ItemOutcomes()
        if !sendable.0.isEmpty || !sendable.1.isEmpty {
            outcomes = await modify(
                sendable.0, deleting: sendable.1, atomically: atomicByZone, splittable: splittable, user: user)
        }
        var savedRecords: [PSRecord] = []
        savedRecords.reserveCapacity(saves.count)
        var failedSaves: [Event.SentRecordZoneChanges.FailedRecordSave] = []
        var deletedIDs: [PSRecord.ID] = []
        var failedDeletes: [PSRecord.ID: PSError] = [:]
        var leaving: [PendingRecordZoneChange] = []
        leaving.reserveCapacity(saves.count + deletes.count)
        func failed(_ id: PSRecord.ID, _ error: PSError, _ change: PendingRecordZoneChange) {
            note(error, for: id, &progress)
            if !Self.isRetryable(error.code) { leaving.append(change) }
        }
        for record in saves {
            let refusal = refused.isEmpty ? nil : refused[record.recordID]
            switch refusal.map({ .failure($0) })
                ?? outcomes.saves[record.recordID.containerRecordID]?.mapError(PSError.init)
            {
            case .success(let saved)?:
                savedRecords.append(PSRecord(saved))
                leaving.append(.saveRecord(record.recordID))
            case .failure(let error)?:
                failedSaves.append(Event.SentRecordZoneChanges.FailedRecordSave(record: record, error: error))
                failed(record.recordID, error, .saveRecord(record.recordID))
            case nil:
                continue
            }
        }
        for id in deletes {
            let refusal = refused.isEmpty ? nil : refused[id]
            switch refusal.map({ .failure($0) }) ?? outcomes.deletes[id.containerRecordID]?.mapError(PSError.init) {
            case .success?:
                deletedIDs.append(id)
                leaving.append(.deleteRecord(id))
            case .failure(let error)?:
                failedDeletes[id] = error
                failed(id, error, .deleteRecord(id))
            case nil:
                continue
            }
        }
        let event = Event.SentRecordZoneChanges(
            savedRecords: savedRecords, failedRecordSaves: failedSaves, deletedRecordIDs: deletedIDs,
            failedRecordDeletes: failedDeletes)
        await post(.sentRecordZoneChanges(event)) { contents in
            // Only a change added before the batch was asked for leaves: one added again since stays.
            for change in leaving { contents.pendingRecordZoneChanges.remove(change, addedBefore: askedAt) }
        }
        if let requestError = outcomes.requestError, Self.isRetryable(requestError.code) {
            return PSError(requestError)
        }
        return nil
    }

    /// Takes a request's outcome into the state, then tells the delegate: the state it reads in its handler is the
    /// one after the request.
    private func post(_ event: Event, after outcome: (inout StateContents) -> Void) async {
        state.update { contents in
            outcome(&contents)
            return false
        }
        await deliver(event)
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
            outcomes.fail(saves, deletes, with: error)
            outcomes.requestError = error
            return outcomes
        }
        outcomes.saves = result.saveResults
        outcomes.deletes = result.deleteResults
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

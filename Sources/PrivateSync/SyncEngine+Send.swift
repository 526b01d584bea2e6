import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SyncEngine {
    /// One change ready to go: the CloudKit record (or the ID to delete) and the revision it was read at.
    struct Outgoing: Sendable {
        let pending: PendingChangeRow
        let record: Record?
    }

    /// Sends pending changes in queue order, in batches within CloudKit's limits, until none are left or a round
    /// makes no progress. A change leaves the queue only when the container accepted it (or the server's answer
    /// settles it: a conflict merged to what the server has, a delete of a record already gone).
    ///
    /// An item that fails on its own (a record the server rejects) is set aside for the rest of the cycle, so it
    /// does not hold back the others; the cycle then ends with a retry for it.
    func sendAll(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        let user = cycle.user
        let limits = CloudLimits.cloudKit
        var batchLimit = try transaction(cycle) { _, state in state.batchSize(limits: limits) }
        var setAside = Set<String>()
        // The failure of a change set aside: the only thing that can leave the cycle unfinished. A batch refused
        // because another item of it conflicted is not one: its items are sent again in the next round.
        var lastFailure: CloudError?
        var rounds = 0
        var itemsSent = 0
        // Names whose delete this cycle's requests carried: a record created anew under one of them meets the
        // deletion's echo in the next fetch whatever became of its own save, so it is never taken for a creation
        // whose deletion wins (`EngineState.creationsInFlight`).
        var deletedThisCycle = Set<String>()
        // Each round either moves something or stops the cycle; the cap only guards against a server that keeps
        // answering with conflicts forever. A cycle also stops once it has sent `maximumItemsPerCycle` items (the
        // rest wait for the next cycle, due at once): its request log, which names every item, stays bounded.
        while rounds < 10_000 && itemsSent < maximumItemsPerCycle {
            rounds += 1
            let batch = try transaction(cycle) { transaction, state in
                let batch = try self.nextBatch(
                    user: user, itemLimit: batchLimit, byteLimit: limits.maximumRequestBytes, skipping: setAside,
                    transaction)
                // Committed before the request goes: what it creates, in case its answer is never applied.
                state.creationsInFlight = batch.creations.subtracting(deletedThisCycle)
                return batch
            }
            for (name, type) in batch.refused { emit(.refusedToSend(recordName: name, recordType: type), &report) }
            if batch.items.isEmpty { break }
            let creating = !batch.creations.subtracting(deletedThisCycle).isEmpty
            do {
                try await verifyUser(user, &report)
            } catch {
                if creating { forgetCreationsInFlight(cycle) }
                throw error
            }
            let saves = batch.items.compactMap(\.record)
            let deletes = batch.items.filter { $0.record == nil }.map {
                RecordID(uncheckedName: $0.pending.recordName, zoneID: zoneID)
            }
            let result: ModifyResult
            // The request as the log shows it; its items' outcomes are filled in once the result is known.
            let logged = report.requests.count
            let items = batch.items.map {
                ContainerRequest.Item(recordName: $0.pending.recordName, isDelete: $0.record == nil)
            }
            do {
                let outcome: Result<ModifyResult, CloudError> = await asRequest(for: user) {
                    do throws(CloudError) {
                        return .success(
                            try await self.container.modifyRecords(
                                saving: saves, deleting: deletes, savePolicy: .ifServerRecordUnchanged, atomically: true
                            ))
                    } catch {
                        return .failure(error)
                    }
                }
                result = try log(.modifyRecords, zone: zoneID, items: items, batchSize: batchLimit, outcome, &report)
                    .get()
                for index in items.indices {
                    let id = RecordID(uncheckedName: items[index].recordName, zoneID: zoneID)
                    let error: CloudError? =
                        if items[index].isDelete {
                            if case .failure(let error)? = result.deleteResults[id] { error } else { nil }
                        } else {
                            if case .failure(let error)? = result.saveResults[id] { error } else { nil }
                        }
                    report.requests[logged].items[index].error = error?.code
                    if let fault = error?.injectedFault { report.requests[logged].fault = fault }
                }
            } catch  where error.code == .limitExceeded && batch.items.count > 1 {
                // (No record of the batch has left yet: the request was refused whole.)
                let smaller = max(1, batch.items.count / 2)
                report.refusedRequests += 1
                emit(.batchSplit(from: batch.items.count, to: smaller), &report)
                batchLimit = smaller
                // Kept with the engine's state: a server whose limit stays low costs one series of refusals, not
                // one per round or per cycle.
                try transaction(cycle) { _, state in
                    state.reducedBatchSize = smaller
                    state.batchStreak = 0
                }
                continue
            } catch  where error.code == .limitExceeded {
                report.refusedRequests += 1
                setAside.insert(batch.items[0].pending.recordName)
                lastFailure = error
                continue
            } catch {
                // Refused whole, the request created nothing; only a lost answer leaves what it created unknown (and a
                // crash, which commits nothing more).
                if creating && error.code != .serverResponseLost { forgetCreationsInFlight(cycle) }
                throw stop(for: error)
            }
            let outcome = try transaction(cycle) { transaction, state in
                let outcome = try self.apply(result, of: batch.items, transaction)
                state.totals.sentSaves += outcome.saves
                state.totals.sentDeletes += outcome.deletes
                state.totals.conflictsResolved += outcome.resolved.conflicts.count
                batchLimit = Self.noteAcceptedRequest(&state, limits: limits)
                state.creationsInFlight = []
                return outcome
            }
            for item in batch.items where item.record == nil { deletedThisCycle.insert(item.pending.recordName) }
            report.sentSaves += outcome.saves
            report.sentDeletes += outcome.deletes
            if outcome.saves + outcome.deletes > 0 {
                emit(.sent(saves: outcome.saves, deletes: outcome.deletes), &report)
            }
            absorb(outcome.resolved, &report)
            if let pause = outcome.pause { throw pause }
            if outcome.zoneMissing { try await zoneVanished(cycle, &report) }
            setAside.formUnion(outcome.setAside)
            if let failure = outcome.failure { lastFailure = failure }
            if !outcome.progressed && outcome.setAside.isEmpty {
                // Nothing moved and nothing can be set aside: retry later rather than spin.
                throw .retry(
                    lastFailure ?? outcome.echo ?? CloudError(.internalError, "no pending change could be sent"))
            }
            itemsSent += batch.items.count
        }
        // The outcome says what is left: only changes set aside for a failure of their own.
        if let lastFailure { throw .retry(lastFailure) }
    }

    /// Forgets the creations of a request that is known not to have created anything (it was refused whole, or never
    /// went), so that a deletion fetched later is not taken for one of them: a store that fails to commit (a crash)
    /// keeps them, as it should.
    private func forgetCreationsInFlight(_ cycle: CycleGuard) {
        _ = try? transaction(cycle) { _, state in state.creationsInFlight = [] }
    }

    /// The most items one cycle sends: a larger backlog (a first sync after importing a million records) goes in
    /// several cycles, each due at once (``SyncEngine/nextRunDate()``), so that a cycle's memory (its request log
    /// names every item: `make bench`, `big_world_rss_mb`) does not grow with the backlog.
    public static let defaultMaximumItemsPerCycle = 100_000

    /// After this many accepted requests in a row, the batch size doubles (up to CloudKit's limit): a limit that was
    /// low for a while is probed again now and then, at the cost of one refused request.
    static let acceptedRequestsBeforeGrowing = 10

    /// Counts an accepted request and grows the batch size after enough of them.
    ///
    /// - Returns: The batch size to use next.
    static func noteAcceptedRequest(_ state: inout EngineState, limits: CloudLimits) -> Int {
        let size = state.batchSize(limits: limits)
        guard size < limits.maximumItemsPerRequest else { return size }
        let streak = state.batchStreak + 1
        if streak < acceptedRequestsBeforeGrowing {
            state.batchStreak = streak
            return size
        }
        let grown = min(limits.maximumItemsPerRequest, size * 2)
        state.reducedBatchSize = grown == limits.maximumItemsPerRequest ? nil : grown
        state.batchStreak = 0
        return grown
    }

    struct Batch: Sendable {
        var items: [Outgoing] = []
        var refused: [(String, String)] = []
        /// The names of the saves that carry no change tag: the records the request creates.
        var creations = Set<String>()
    }

    /// The most bytes the names of one request's creations take (a name and a newline each), so that
    /// ``EngineState/creationsInFlight`` stays within the 64 KiB a store's text value may hold: 400 record names of
    /// CloudKit's longest, 255 bytes, would not. Names of usual length (a UUID's 36 bytes) never reach it.
    static let creationNameBytesPerRequest = 60_000

    /// The next batch: pending changes in queue order, up to the item and byte limits.
    ///
    /// This is where the partition is enforced on the way out: a change of a type that is not user-created is
    /// dropped from the queue and reported, whatever put it there. A record written under another account than
    /// the bound one is never sent (it stays queued, for that account); one written with no account is given to
    /// the bound account as it goes.
    private func nextBatch(
        user: UserRecordID, itemLimit: Int, byteLimit: Int, skipping setAside: Set<String>, _ state: SyncTransaction
    ) throws -> Batch {
        var batch = Batch()
        var bytes = 0
        var creationNameBytes = 0
        var after: Int64 = 0
        while batch.items.count < itemLimit {
            let page = try state.pendingChanges(after: after, limit: itemLimit * 2)
            guard let last = page.last else { return batch }
            after = last.queuedSequence
            for pending in page {
                if batch.items.count >= itemLimit { return batch }
                if setAside.contains(pending.recordName) { continue }
                guard store.partition.partition(of: pending.recordType) == .userCreated else {
                    try state.removePendingChange(named: pending.recordName, ifRevision: nil)
                    batch.refused.append((pending.recordName, pending.recordType))
                    continue
                }
                switch pending.kind {
                case .delete:
                    let size = pending.recordName.utf8.count
                    if bytes + size > byteLimit && !batch.items.isEmpty { return batch }
                    bytes += size
                    batch.items.append(Outgoing(pending: pending, record: nil))
                case .save:
                    if let origin = pending.origin, origin != user { continue }
                    guard let local = try state.record(named: pending.recordName) else {
                        try state.removePendingChange(named: pending.recordName, ifRevision: pending.revision)
                        continue
                    }
                    let size = local.encodedSize
                    if bytes + size > byteLimit && !batch.items.isEmpty { return batch }
                    let serverFields = try state.serverFields(of: local.name)?.systemFields
                    let creation = serverFields?.changeTag == nil
                    if creation {
                        let nameBytes = local.name.utf8.count + 1
                        if creationNameBytes + nameBytes > Self.creationNameBytesPerRequest && !batch.items.isEmpty {
                            return batch
                        }
                        creationNameBytes += nameBytes
                        batch.creations.insert(local.name)
                    }
                    bytes += size
                    if local.origin == nil { try state.adoptRecord(named: local.name, as: user) }
                    let cloud = RecordMapping.cloudRecord(for: local, zone: zoneID, basedOn: serverFields)
                    batch.items.append(Outgoing(pending: pending, record: cloud))
                }
            }
        }
        return batch
    }

    struct SendOutcome: Sendable {
        var saves = 0
        var deletes = 0
        var resolved = ResolvedRecords()
        var setAside: Set<String> = []
        var progressed = false
        var zoneMissing = false
        /// The failure of an item set aside.
        var failure: CloudError?
        /// A `batchRequestFailed`: an item refused only because another item of the atomic batch failed.
        var echo: CloudError?
        var pause: Stop?
    }

    /// Applies a modify request's results to the store, in one transaction (the caller counts them in the totals).
    private func apply(_ result: ModifyResult, of items: [Outgoing], _ state: SyncTransaction) throws -> SendOutcome {
        var outcome = SendOutcome()
        for item in items {
            let name = item.pending.recordName
            let id = RecordID(uncheckedName: name, zoneID: zoneID)
            let failure: CloudError
            // An item the answer leaves out failed like any other: it is classified below.
            if item.record != nil {
                switch result.saveResults[id] ?? .failure(Self.noResult(for: name)) {
                case .success(let saved):
                    guard let serverFields = saved.systemFields else {
                        failure = CloudError(
                            .internalError, "the container returned \(name) as saved, without its system fields")
                        break
                    }
                    try state.setServerFields(serverFields, of: name)
                    // Only the revision that was sent: an edit made while the request was in flight stays queued.
                    try state.removePendingChange(
                        named: name, ifRevision: item.pending.revision)
                    outcome.saves += 1
                    outcome.progressed = true
                    continue
                case .failure(let error) where error.code == .serverRecordChanged:
                    try merge(error, name: name, pending: item.pending, &outcome, state)
                    continue
                case .failure(let error) where error.code == .unknownItem:
                    // The record was deleted on the server after this device last saw it: the delete wins.
                    try state.deleteRecord(named: name)
                    try state.removePendingChange(named: name, ifRevision: nil)
                    outcome.resolved.deleteWins.append(name)
                    outcome.progressed = true
                    continue
                case .failure(let error):
                    failure = error
                }
            } else {
                switch result.deleteResults[id] ?? .failure(Self.noResult(for: name)) {
                case .success:
                    try state.removePendingChange(named: name, ifRevision: item.pending.revision)
                    outcome.deletes += 1
                    outcome.progressed = true
                    continue
                case .failure(let error) where error.code == .unknownItem:
                    // Already gone: the delete is settled.
                    try state.removePendingChange(named: name, ifRevision: item.pending.revision)
                    outcome.progressed = true
                    continue
                case .failure(let error):
                    failure = error
                }
            }
            classify(failure, name: name, &outcome)
        }
        return outcome
    }

    /// The failure of an item that a modify request's answer leaves out.
    ///
    /// - Parameter name: The item's record name.
    /// - Returns: An `internalError` naming it.
    private static func noResult(for name: String) -> CloudError {
        CloudError(.internalError, "the container returned no result for \(name)")
    }

    /// Merges a conflicting save INTO the server's version: its change tag is the only one the next save can
    /// succeed with. The change stays queued when the merge differs from what the server has.
    private func merge(
        _ error: CloudError, name: String, pending: PendingChangeRow, _ outcome: inout SendOutcome,
        _ state: SyncTransaction
    )
        throws
    {
        guard let serverRecord = error.serverRecord, let local = try state.record(named: name) else {
            classify(error, name: name, &outcome)
            return
        }
        let server = RecordMapping.storedRecord(
            from: serverRecord, origin: local.origin, existing: local)
        let merge = mergeOutcome(local: local, server: server)
        try state.putRecord(merge.record, serverFields: serverRecord.systemFields)
        if merge.record.matchesForUpload(server) {
            try state.removePendingChange(named: name, ifRevision: pending.revision)
        }
        // Every conflict counts, whichever side the merge kept.
        outcome.resolved.conflicts.append(name)
        if merge.tooLarge { outcome.resolved.tooLarge.append(name) }
        outcome.progressed = true
    }

    /// Merges this device's version with the server's by the engine's resolver (``ConflictResolver/mergeOutcome(local:server:)``).
    func mergeOutcome(local: StoredRecord, server: StoredRecord) -> (record: StoredRecord, tooLarge: Bool) {
        resolver.mergeOutcome(local: local, server: server)
    }

    /// Sorts an item's failure (of a save or a delete): a pause for the whole cycle, a missing zone, an echo of
    /// another item's failure (retried at once), or a failure of its own (set aside until the next cycle).
    private func classify(_ error: CloudError, name: String, _ outcome: inout SendOutcome) {
        switch error.code {
        case .batchRequestFailed:
            if outcome.echo == nil { outcome.echo = error }
        case .zoneNotFound, .userDeletedZone:
            outcome.zoneMissing = true
        case .quotaExceeded, .notAuthenticated, .accountTemporarilyUnavailable:
            outcome.pause = stop(for: error)
        default:
            outcome.setAside.insert(name)
            outcome.failure = error
        }
    }
}

extension StoredRecord {
    /// Whether a merge leaves nothing to send: its fields, their versions and its creation time are the server's.
    /// (The creation time counts: two devices that created one name each keep the earlier of the two; one that kept
    /// an earlier time than the server's once never sent it, and the two never converged.)
    ///
    /// - Parameter server: The server's version, as this device reads it.
    /// - Returns: Whether the server already holds this record.
    package func matchesForUpload(_ server: StoredRecord) -> Bool {
        fields == server.fields && fieldVersions == server.fieldVersions && createdAt == server.createdAt
    }
}

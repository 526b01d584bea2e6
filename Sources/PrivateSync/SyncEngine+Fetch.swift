import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SyncEngine {
    /// Fetches the zone's changes since the saved token, page by page; each page and its token commit together.
    ///
    /// A fetch from no token is a full snapshot: when the store already holds records the server confirmed, the
    /// engine remembers which names the snapshot returned and, at its end, deletes the confirmed records the server
    /// no longer has (so an expired token loses no deletion and duplicates nothing).
    func fetchAll(_ cycle: CycleGuard, _ report: inout SyncReport) async throws(Stop) {
        let user = cycle.user
        var restarts = 0
        while true {
            let token = try transaction(cycle) { transaction, state -> ChangeToken? in
                let token = state.zoneChangeToken
                if token == nil, !state.reconcileOnFullFetch, try transaction.hasSyncedRecords(of: user) {
                    try transaction.clearSeenRecords()
                    state.reconcileOnFullFetch = true
                }
                // A fetch from no token returns the deletions of the zone's whole history, an earlier record's under
                // a name among them: such a deletion says nothing of what a request in flight created.
                if token == nil { state.creationsInFlight = [] }
                return token
            }
            // Every call goes to whoever is signed in: make sure that is still the bound user.
            try await verifyUser(user, &report)
            let page: RecordZoneChanges
            do {
                let outcome: Result<RecordZoneChanges, CloudError> = await asRequest(for: user) {
                    do throws(CloudError) {
                        return .success(
                            try await self.container.recordZoneChanges(in: self.zoneID, since: token, resultsLimit: nil)
                        )
                    } catch {
                        return .failure(error)
                    }
                }
                page = try log(.recordZoneChanges, zone: zoneID, outcome, &report).get()
                report.requests[report.requests.count - 1].received = page.modifications.count + page.deletions.count
            } catch  where error.code == .changeTokenExpired && restarts < 3 {
                restarts += 1
                try transaction(cycle) { _, state in state.zoneChangeToken = nil }
                emit(.changeTokenExpired, &report)
                continue
            } catch  where (error.code == .zoneNotFound || error.code == .userDeletedZone) && restarts < 3 {
                // The zone went away after the database changes were read: the deletion policy applies.
                restarts += 1
                try await zoneVanished(cycle, &report)
                continue
            } catch {
                throw stop(for: error)
            }
            let applied = try transaction(cycle) { transaction, state in
                // The page follows the token it was fetched from: if the store's token moved meanwhile, another
                // cycle of this device applied changes in between (a reconciling full fetch among them, whose end
                // deletes what its pages did not mark seen), and this page is not the next one.
                guard state.zoneChangeToken == token else {
                    throw CycleInterrupted(reason: .overtakenByAnotherCycle)
                }
                // A full fetch marks every name it returns, on every page (a resumed one too): at its end, the
                // reconciliation deletes the synced records not marked, and a requeue queues them.
                let reconciling = state.reconcileOnFullFetch || state.requeueOnFullFetch
                return try self.apply(page, user: user, reconciling: reconciling, transaction, &state)
            }
            report.fetchedModifications += applied.modifications
            report.fetchedDeletions += applied.deletions
            if applied.modifications + applied.deletions > 0 {
                emit(.fetched(modifications: applied.modifications, deletions: applied.deletions), &report)
            }
            absorb(applied.resolved, &report)
            for (name, type) in applied.ignored {
                emit(.ignoredFetchedRecord(recordName: name, recordType: type), &report)
            }
            for (name, reason) in applied.refused {
                emit(.fetchedRecordProblem(recordName: name, problem: reason), &report)
            }
            if let removed = applied.reconciled { emit(.reconciled(removed: removed), &report) }
            if let requeued = applied.requeued { emit(.requeuedAfterReset(records: requeued), &report) }
            if !page.moreComing { return }
        }
    }

    struct AppliedPage: Sendable {
        var modifications = 0
        var deletions = 0
        var resolved = ResolvedRecords()
        var ignored: [(String, String)] = []
        var refused: [(String, String)] = []
        var reconciled: Int?
        var requeued: Int?
    }

    /// Records what this device could not take of a fetched record: in the cycle's report and in the engine's state,
    /// which the status reads (the list is bounded; a name already on it is updated).
    private func note(
        _ problem: String, _ name: String, _ engineState: inout EngineState, _ applied: inout AppliedPage
    ) {
        applied.refused.append((name, EngineState.note(problem, of: name, in: &engineState.fetchedRecordProblems)))
    }

    /// `text` cut to at most `bytes` bytes of UTF-8 (at a scalar's boundary, `…` marking the cut).
    static func bounded(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            count += String(scalar).utf8.count
            if count > bytes - 3 { break }
            kept.append(scalar)
        }
        return String(kept) + "…"
    }

    /// Applies one page and its token.
    private func apply(
        _ page: RecordZoneChanges, user: UserRecordID, reconciling: Bool, _ state: SyncTransaction,
        _ engineState: inout EngineState
    )
        throws -> AppliedPage
    {
        var applied = AppliedPage()
        // Names in a page are distinct, and each item writes only its own name: which of them the store knows can be
        // read once, up front; an unknown name has no record and no pending change to look up.
        let known = try state.knownNames(
            among: page.modifications.map(\.recordID.recordName) + page.deletions.map(\.recordID.recordName))
        for cloud in page.modifications {
            // Only user-created types belong in this store; anything else in the zone is not ours to take.
            guard store.partition.partition(of: cloud.recordType) == .userCreated else {
                applied.ignored.append((cloud.recordID.recordName, cloud.recordType))
                continue
            }
            let name = cloud.recordID.recordName
            if reconciling { try state.markSeen(name) }
            applied.modifications += 1
            let isKnown = !known.isEmpty && known.contains(name)
            let pending = isKnown ? try state.pendingChange(named: name) : nil
            if pending?.kind == .delete { continue }  // A local delete wins; it is sent next.
            // The server's copy of a version this device already has (its own save, come back): nothing to merge,
            // even with an edit pending, since that edit was made on top of this very version. Only a version this
            // device has not seen goes to the resolver. Known before the local copy is decoded: most fetched
            // changes are such echoes, and a record's fields can be a megabyte.
            if isKnown, try state.containsRecord(named: name),
                try state.serverChangeTag(of: name) == cloud.recordChangeTag
            {
                continue
            }
            let local = isKnown ? try state.record(named: name) : nil
            let server = RecordMapping.storedRecord(
                from: cloud, origin: user, existing: local)
            // Other clients write the container too: what this device cannot take of a record is judged here, as
            // the store will judge it when it opens. A reserved value out of range is set aside (the record read as
            // one from another client is); a record that still cannot be stored is left where it is. Either way it
            // is named, and the store stays openable.
            if let problem = server.storageProblem(serverFields: cloud.systemFields) {
                note("\(problem); not stored on this device", name, &engineState, &applied)
                continue
            }
            if let setAside = RecordMapping.unusableReservedValue(of: cloud) {
                note("\(setAside); read as written at the server's times", name, &engineState, &applied)
            } else {
                engineState.fetchedRecordProblems[name] = nil
            }
            guard let local, let pending else {
                try state.putRecord(server, serverFields: cloud.systemFields)
                continue
            }
            // Every pending change that meets an unseen server version is a conflict, whichever side the merge keeps.
            applied.resolved.conflicts.append(name)
            let merge = mergeOutcome(local: local, server: server)
            if merge.tooLarge { applied.resolved.tooLarge.append(name) }
            try state.putRecord(merge.record, serverFields: cloud.systemFields)
            if merge.record.matchesForUpload(server) {
                try state.removePendingChange(named: name, ifRevision: pending.revision)
            }
        }
        // A deletion of a name this page also modified (no container sends both, but nothing here assumes it) finds
        // what the modification wrote.
        let modified = page.deletions.isEmpty ? [] : Set(page.modifications.map(\.recordID.recordName))
        for deletion in page.deletions {
            let name = deletion.recordID.recordName
            applied.deletions += 1
            engineState.fetchedRecordProblems[name] = nil
            guard known.contains(name) || modified.contains(name) else {
                // Neither a record nor a pending change: the deletion has nothing to remove here.
                continue
            }
            let pending = try state.pendingChange(named: name)
            // A record this device created anew under a name whose earlier record was deleted (its own delete's
            // echo, or another device's): the server never held this one (no change tag), so the deletion is of
            // its predecessor. It stays, and its save goes up. Unless a request that created it may have reached
            // the server unrecorded (a crash, a lost answer): then the server did hold it, and the deletion, made
            // since on another device, is of this very record (seed 2938 of the sweep at a08b537).
            if pending?.kind == .save, !engineState.creationsInFlight.contains(name),
                try state.containsRecord(named: name), try state.serverChangeTag(of: name) == nil
            {
                continue
            }
            if pending?.kind == .save { applied.resolved.deleteWins.append(name) }
            try state.deleteRecord(named: name)
            try state.removePendingChange(named: name, ifRevision: nil)
        }
        engineState.zoneChangeToken = page.changeToken
        // What the server now holds of a name settles whether a request in flight created it.
        if !engineState.creationsInFlight.isEmpty {
            engineState.creationsInFlight.subtract(page.modifications.map(\.recordID.recordName))
            engineState.creationsInFlight.subtract(page.deletions.map(\.recordID.recordName))
        }
        engineState.totals.fetchedModifications += applied.modifications
        engineState.totals.fetchedDeletions += applied.deletions
        engineState.totals.conflictsResolved += applied.resolved.conflicts.count
        if !page.moreComing {
            if engineState.requeueOnFullFetch {
                // After a reset nothing is known to be synced: what the server lacks is sent, never deleted.
                applied.requeued = try state.queueRecordsNotSeen(for: user).count
                engineState.requeueOnFullFetch = false
                engineState.reconcileOnFullFetch = false
            } else if reconciling {
                applied.reconciled = try state.deleteSyncedRecordsNotSeen(of: user).count
                engineState.reconcileOnFullFetch = false
            }
            engineState.initialFetchDone = true
        }
        return applied
    }
}

import Synchronization

extension PSSyncEngine {
    /// Fetches what changed on the server, as `CKSyncEngine.fetchChanges(_:)`.
    ///
    /// The order of events: `willFetchChanges`; `fetchedDatabaseChanges` for each page of zone changes; then for
    /// each zone with changes, the options' prioritized zones first: `willFetchRecordZoneChanges`,
    /// `fetchedRecordZoneChanges` for each page, `didFetchRecordZoneChanges`; and `didFetchChanges`. After each page
    /// the state (with the page's change token) is posted in a `stateUpdate`, after the page's event was handled.
    /// Before each zone the delegate's ``PSSyncEngineDelegate/nextFetchChangesOptions(_:syncEngine:)`` may change
    /// the options. With no account signed in nothing is posted but an `accountChange` (if the user signed out).
    ///
    /// - Parameter options: The zones to fetch, and which first.
    /// - Throws: ``PSError`` when the fetch could not finish (the account, the network: the zones left stay in
    ///   ``State/zoneIDsWithUnfetchedServerChanges``); `operationCancelled` after ``cancelOperations()``;
    ///   ``PSSyncEngineMisuse`` when awaited from inside the delegate's `handleEvent`. Returns only after every
    ///   event it posted was handled.
    public func fetchChanges(_ options: FetchChangesOptions = FetchChangesOptions()) async throws {
        if let forwarded { return try await forwarded.fetchChanges(options) }
        try await operation("fetchChanges(_:)") { generation in
            try await self.performFetch(options, reason: .manual, generation: generation)
        }
    }

    func performFetch(_ options: FetchChangesOptions, reason: SyncReason, generation: Int) async throws(PSError) {
        let user = try await usableAccount(retrying: .fetch)
        var options = options
        await deliver(
            .willFetchChanges(Event.WillFetchChanges(context: FetchChangesContext(reason: reason, options: options))))
        var failure: PSError?
        do {
            try await fetchDatabaseChanges(user: user, generation: generation)
        } catch {
            failure = error
        }
        var visited = Set<PSRecordZone.ID>()
        while failure == nil {
            if isCancelled(generation) {
                failure = Self.cancelledError
                break
            }
            let context = FetchChangesContext(reason: reason, options: options)
            options = await callDelegate { await $0.nextFetchChangesOptions(context, syncEngine: self) } ?? options
            guard let zoneID = nextZoneToFetch(options, excluding: visited) else { break }
            visited.insert(zoneID)
            failure = await fetchZone(zoneID, user: user, generation: generation)
        }
        runtime.withLock { $0.lastFetchSucceeded = failure == nil }
        await deliver(
            .didFetchChanges(Event.DidFetchChanges(context: FetchChangesContext(reason: reason, options: options))))
        await deliverStateUpdateIfNeeded()
        if let failure {
            scheduleRetry(.fetch, after: failure)
            throw failure
        }
        noteSuccess()
    }

    /// The error an operation stopped by ``cancelOperations()`` throws.
    static var cancelledError: PSError {
        PSError(.operationCancelled, "the operation was cancelled (cancelOperations)")
    }

    /// The next zone with unfetched changes in the options' scope: a prioritized one first, in their order.
    private func nextZoneToFetch(
        _ options: FetchChangesOptions, excluding visited: Set<PSRecordZone.ID>
    )
        -> PSRecordZone.ID?
    {
        let waiting = state.zoneIDsWithUnfetchedServerChanges.filter {
            options.scope.contains($0) && !visited.contains($0)
        }
        return options.prioritizedZoneIDs.first(where: waiting.contains) ?? waiting.first
    }

    /// Reads the database's zone changes since the state's token, page by page: each page's event, then its token.
    ///
    /// A fetch from no token reports the zones that exist and no deletion (there is nothing local to delete yet).
    private func fetchDatabaseChanges(user: UserRecordID, generation: Int) async throws(PSError) {
        var token = state.contents.withLock { $0.databaseToken }
        var restarted = false
        while true {
            if isCancelled(generation) { throw Self.cancelledError }
            let page: DatabaseChanges
            do {
                let since = token
                page = try await request(for: user) { () async throws(CloudError) -> DatabaseChanges in
                    try await database.container.databaseChanges(since: since, resultsLimit: nil)
                }
            } catch {
                // An expired token, or one the server cannot read (a hand-edited state): start again from nil.
                if token != nil && !restarted && [.changeTokenExpired, .invalidArguments].contains(error.code) {
                    restarted = true
                    token = nil
                    state.update { contents in
                        contents.databaseToken = nil
                        return false
                    }
                    continue
                }
                throw PSError(error)
            }
            let deletions =
                token == nil
                ? []
                : page.deletions.map {
                    PSDatabase.DatabaseChange.Deletion(zoneID: PSRecordZone.ID($0.zoneID), reason: .init($0.reason))
                }
            let modifications = page.modifiedZoneIDs.map {
                PSDatabase.DatabaseChange.Modification(zoneID: PSRecordZone.ID($0))
            }
            if !deletions.isEmpty || !modifications.isEmpty {
                await deliver(
                    .fetchedDatabaseChanges(
                        Event.FetchedDatabaseChanges(modifications: modifications, deletions: deletions)))
            }
            state.update { contents in
                // A zone deleted and created again since the token is in both lists: the deletion came first.
                for deletion in deletions { contents.forgetZone(deletion.zoneID) }
                for modification in modifications { contents.noteUnfetched(modification.zoneID) }
                contents.databaseToken = page.changeToken
                return false
            }
            await deliverStateUpdateIfNeeded()
            token = page.changeToken
            if !page.moreComing { return }
        }
    }

    /// Fetches one zone's record changes since the state's token, page by page, between its `will` and `did`
    /// events.
    ///
    /// - Returns: The error that stops the whole fetch, or `nil` to go on with the next zone (the zone's fetch
    ///   succeeded, or the zone is gone: its error is in `didFetchRecordZoneChanges`).
    private func fetchZone(_ zoneID: PSRecordZone.ID, user: UserRecordID, generation: Int) async -> PSError? {
        await deliver(.willFetchRecordZoneChanges(Event.WillFetchRecordZoneChanges(zoneID: zoneID)))
        var token = state.contents.withLock { $0.zoneTokens[zoneID] }
        var restarted = false
        var failure: PSError?
        var stop: PSError?
        pages: while true {
            if isCancelled(generation) {
                failure = Self.cancelledError
                stop = failure
                break
            }
            let page: RecordZoneChanges
            do {
                try PSDatabase.checkOwner(zoneID)
            } catch {
                failure = error
                state.update { contents in
                    contents.forgetZone(zoneID)
                    return false
                }
                break
            }
            do {
                let since = token
                page = try await request(for: user) { () async throws(CloudError) -> RecordZoneChanges in
                    try await database.container.recordZoneChanges(
                        in: zoneID.containerZoneID, since: since, resultsLimit: nil)
                }
            } catch {
                if token != nil && !restarted && [.changeTokenExpired, .invalidArguments].contains(error.code) {
                    restarted = true
                    token = nil
                    state.update { contents in
                        contents.zoneTokens[zoneID] = nil
                        return false
                    }
                    continue
                }
                failure = PSError(error)
                switch error.code {
                case .zoneNotFound, .userDeletedZone, .invalidArguments:
                    // The zone is gone (the database changes say why) or cannot be fetched: nothing waits in it.
                    state.update { contents in
                        contents.forgetZone(zoneID)
                        return false
                    }
                default:
                    stop = failure
                }
                break pages
            }
            let modifications = page.modifications.map {
                PSDatabase.RecordZoneChange.Modification(record: PSRecord($0))
            }
            let deletions = page.deletions.map {
                PSDatabase.RecordZoneChange.Deletion(recordID: PSRecord.ID($0.recordID), recordType: $0.recordType)
            }
            if !modifications.isEmpty || !deletions.isEmpty {
                await deliver(
                    .fetchedRecordZoneChanges(
                        Event.FetchedRecordZoneChanges(modifications: modifications, deletions: deletions)))
            }
            state.update { contents in
                contents.zoneTokens[zoneID] = page.changeToken
                if !page.moreComing { contents.unfetchedZones.removeAll { $0 == zoneID } }
                return false
            }
            await deliverStateUpdateIfNeeded()
            token = page.changeToken
            if !page.moreComing { break }
        }
        await deliver(.didFetchRecordZoneChanges(Event.DidFetchRecordZoneChanges(zoneID: zoneID, error: failure)))
        return stop
    }
}

import Synchronization

extension SweepRun {
    /// The faults stop for good and every device signed in syncs, round after round, until no engine has anything
    /// pending or the rounds run out; then one more fetch each, so that the last sends reach everyone; then one more
    /// round, which must find nothing to do (``settled()``).
    func heal() async {
        faults.stop()
        state.withLock { state in
            state.quiet += 1
            for index in state.devices.indices {
                state.devices[index].crashAtRequest = nil
                state.devices[index].crashAtEvent = nil
            }
        }
        note("heal: the faults stop; every device signed in syncs")
        for _ in 0..<sweep.configuration.healRounds {
            guard await everyDeviceSyncs(sending: true, consenting: true) else { return }
            await cloud.scheduler.runUntilIdle(maximumRuns: 2_000)
            checkMisuses()
            if failed { return }
            if await pendingWork().isEmpty, await awaitingTheUser().isEmpty, await notYetUpToDate().isEmpty { break }
        }
        if let (device, pending) = await pendingWork().first {
            fail(
                .quiescence,
                "device-\(device) still has \(pending) pending after \(sweep.configuration.healRounds) rounds of "
                    + "syncs with no fault")
            return
        }
        guard await everyDeviceSyncs(sending: false) else { return }
        checkMisuses()
        if !failed { await settled() }
    }

    /// Each device signed in fetches, then sends if asked, in turn.
    ///
    /// - Parameters:
    ///   - sending: Whether each sends after its fetch.
    ///   - consenting: Whether the user first does what a pause that waits for them asks (``awaitsTheUser(_:)``): in
    ///     the heal's rounds, so that everything can end synced; never in the last round, which must find nothing to
    ///     do.
    /// - Returns: `false` when a device had no engine to sync with (its app failed, and the run with it).
    private func everyDeviceSyncs(sending: Bool, consenting: Bool = false) async -> Bool {
        let devices = state.withLock { $0.devices.indices }
        for device in devices where account(of: device) != nil {
            if consenting, let app = await app(device), case .paused(let cause)? = await app.status(),
                Self.awaitsTheUser(cause)
            {
                await userAnswers(cause, device, app)
                if failed { return true }
            }
            guard let engine = await engine(device) else { return false }
            try? await engine.fetchChanges()
            if sending { try? await engine.sendChanges() }
        }
        return true
    }

    /// Once everyone has synced everything, a round of syncs has nothing to do: no device finds work after its
    /// fetch, and no record on the server is written again (a delegate that sends what the server already holds,
    /// at each fetch, never rests and writes for ever; its values would not show it).
    func settled() async {
        guard let before = changeTags(), await everyDeviceSyncs(sending: true) else { return }
        await cloud.scheduler.runUntilIdle(maximumRuns: 2_000)
        checkMisuses()
        if failed { return }
        if let (device, pending) = await pendingWork().first {
            fail(.quiescence, "device-\(device) found \(pending) to send in a round with nothing new")
            return
        }
        guard let after = changeTags() else { return }
        for account in sweep.configuration.accounts {
            let old = before[account] ?? [:]
            let new = after[account] ?? [:]
            guard let key = Self.firstDifference(old, new) else { continue }
            fail(
                .quiescence,
                "a round of syncs with nothing new wrote \(account)'s \(key) again (change tag \(old[key] ?? "none") "
                    + "became \(new[key] ?? "none"))")
            return
        }
    }

    /// Each account's records' change tags, by record name: what a write changes even when the values stay.
    private func changeTags() -> [String: [String: String]]? {
        var tags: [String: [String: String]] = [:]
        for account in sweep.configuration.accounts {
            guard let records = serverRecords(of: account) else { return nil }
            tags[account] = Dictionary(
                records.map { ($0.recordID.recordName, $0.recordChangeTag ?? "") },
                uniquingKeysWith: { first, _ in first })
        }
        return tags
    }

    /// The devices signed in whose apps wait for the user to act (``awaitsTheUser(_:)``).
    func awaitingTheUser() async -> [Int] {
        var found: [Int] = []
        let count = state.withLock { $0.devices.count }
        for device in 0..<count where account(of: device) != nil {
            if let app = await app(device), case .paused(let cause)? = await app.status(), Self.awaitsTheUser(cause) {
                found.append(device)
            }
        }
        return found
    }

    /// The devices signed in whose apps do not yet say they are up to date (an app that shows no status says
    /// nothing): an app may keep changes from its engine while it waits for news (the demo app's mirror, when a save
    /// found the zone it knew missing, waits for the database's list to say who deleted it; its status then reads
    /// syncing, or a pause an earlier refusal left), and the next round brings the news. The end of the heal holds
    /// every status to up to date all the same.
    func notYetUpToDate() async -> [Int] {
        var found: [Int] = []
        let count = state.withLock { $0.devices.count }
        for device in 0..<count where account(of: device) != nil {
            guard let app = await app(device), let status = await app.status() else { continue }
            if status != .on(.upToDate) { found.append(device) }
        }
        return found
    }

    /// The devices signed in whose engines still hold changes, and what they hold.
    func pendingWork() async -> [(Int, String)] {
        var found: [(Int, String)] = []
        let count = state.withLock { $0.devices.count }
        for device in 0..<count where account(of: device) != nil {
            guard let engine = await engine(device) else { continue }
            let records = engine.state.pendingRecordZoneChanges
            let zones = engine.state.pendingDatabaseChanges
            if !records.isEmpty || !zones.isEmpty {
                let some = (records.map(\.description) + zones.map(\.description)).prefix(3).joined(separator: ", ")
                found.append((device, "\(records.count + zones.count) change(s) (\(some))"))
            }
        }
        return found
    }

    // MARK: The checks at the end

    /// The engine's contract, then each account's server against the history, then each device against its server.
    func checkFinalState() async {
        let open = state.withLock { state -> String? in
            for record in state.engines.values where record.engine != nil {
                for (name, count) in record.open where count != 0 {
                    return "\(state.devices[record.device].name)'s engine ended with \(name) open (\(count))"
                }
            }
            return nil
        }
        if let open {
            fail(.eventsPaired, open)
            return
        }
        let refused = faults.refused
        var servers: [String: [String: String]] = [:]
        for account in sweep.configuration.accounts {
            guard let server = serverSnapshot(of: account) else { return }
            servers[account] = server
            let verdict = state.withLock { $0.history.verdict(account: account, server: server, refused: refused) }
            if let verdict {
                fail(verdict.invariant, verdict.message)
                return
            }
        }
        let count = state.withLock { $0.devices.count }
        for device in 0..<count {
            guard let account = account(of: device), let app = await app(device) else { continue }
            let shown = await app.snapshot().filter { !refused.contains($0.key) }
            let server = (servers[account] ?? [:]).filter { !refused.contains($0.key) }
            guard let key = Self.firstDifference(shown, server) else { continue }
            fail(
                .convergence,
                "device-\(device) shows \(key) = \(shown[key] ?? "nothing"), but \(account)'s server holds "
                    + "\(server[key] ?? "nothing") (\(shown.count) item(s) shown, \(server.count) on the server)")
            return
        }
        await checkSettledStatuses()
    }

    /// The first key, in order, that two maps hold different values for (or one holds and the other not).
    ///
    /// - Parameters:
    ///   - one: A map.
    ///   - other: Another.
    /// - Returns: The key, or `nil` when the maps are equal.
    static func firstDifference(_ one: [String: String], _ other: [String: String]) -> String? {
        guard one != other else { return nil }
        return Set(one.keys).union(other.keys).sorted().first { one[$0] != other[$0] }
    }
}

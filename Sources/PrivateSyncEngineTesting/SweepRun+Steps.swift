import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SweepRun {
    /// Takes one step on a device drawn by the seed. Inside another device's request (`besides`), the clock moves
    /// a second, as a user's tap would.
    func takeStep(besides waiting: Int? = nil) async {
        let (kind, device) = state.withLock { state -> (SweepStepKind, Int) in
            let kind = weights.drawKind(&state.random)
            return (kind, state.random.int(below: state.devices.count))
        }
        if waiting != nil { cloud.clock.advance(by: 1) }
        switch kind {
        case .action: await act(on: device)
        case .twoDevicesAct: await actOnTwoDevices(first: device)
        case .send: await sync(device, sending: true)
        case .fetch: await sync(device, sending: false)
        case .tick: await tick()
        case .armCrash: armCrash(device)
        case .armWriteCrash: armWriteCrash(device)
        case .crashNow: crash(device, "between two steps")
        case .account: await changeAccount(of: device)
        case .zoneDeletion: await deleteZones()
        case .refusal: refuseARecord()
        case .outage: outage(device)
        }
    }

    // MARK: The user

    /// The user does one of the app's actions; what it wrote is recorded with what the device showed before.
    func act(on device: Int) async {
        guard let app = await app(device) else { return }
        // Paused until the user acts (turns sync on again after deleting the app's data in Settings, chooses the
        // account signed in over the data's): at the run's pace (half the time under the even mix), that is what the
        // user does. (An app that shows no status draws nothing here, so its runs are as they were.)
        if case .paused(let cause)? = await app.status(), Self.awaitsTheUser(cause),
            draw({ $0.chance(weights.answerChance) })
        {
            await userAnswers(cause, device, app)
            return
        }
        guard !sweep.actions.isEmpty else { return }
        let before = await app.snapshot()
        let (action, actionSeed) = state.withLock { state -> (SweepAction<App>, UInt64) in
            let total = sweep.actions.reduce(0) { $0 + $1.weight }
            var roll = state.random.int(below: total)
            for action in sweep.actions {
                if roll < action.weight { return (action, state.random.next()) }
                roll -= action.weight
            }
            return (sweep.actions[0], state.random.next())
        }
        var random = SweepRandom(seed: actionSeed)
        var writes: [SweepWrite]
        var diedInside = false
        var refused = false
        let crashPoint = state.withLock { $0.devices[device].crashPoint }
        let refusedBefore = crashPoint.writesRefused
        do {
            writes = try await action.perform(app, &random)
        } catch  where crashPoint.hasTripped {
            // The app died inside the action (a write of its own): what went through before is the user's; the write
            // it died in, and any after, never were.
            writes = (error as? SweepActionInterrupted)?.writes ?? []
            diedInside = true
        } catch  where crashPoint.writesRefused > refusedBefore {
            // A write failed for want of space: the app told the user; what went through before is theirs.
            writes = (error as? SweepActionInterrupted)?.writes ?? []
            refused = true
        } catch {
            fail(.appFailed, "\(action.name) threw on device-\(device): \(error)")
            return
        }
        // Died after what the action acknowledged was written (a later write of its own, refused): the writes stand,
        // and the device is dead from here, before any request of its can leave.
        if !diedInside { diedInside = state.withLock { $0.devices[device].crashPoint.hasTripped } }
        let account = account(of: device)
        state.withLock { state in
            // Made after the account changed and before the app heard of it: the app takes it for the account it
            // last heard of (and may delete it with that account's data when it hears, or keep it with that data).
            let heard = state.devices[device].appAccount
            let stale = heard.map { $0 != account } ?? false
            // What the device shows as each write lands: a later write of one action over an item its earlier one
            // wrote (deleted, then made again) was made over that, not over what the device showed before.
            var shown = before
            for write in writes {
                defer { shown[write.key] = write.value }
                var writtenUnder = stale ? heard ?? account : account
                var forgiven = stale ? "made before the app heard that its account changed" : nil
                // An edit of an item of another account's data, which an app may keep on the device while no account
                // or another is signed in (until the user chooses): the edit is that account's data too. It goes up
                // to it if that account comes back, or never.
                if let parent = shown[write.key], let owner = state.history.account(ofValue: parent) ?? nil,
                    owner != writtenUnder
                {
                    writtenUnder = owner
                    forgiven =
                        forgiven ?? "an edit of \(owner)'s item, made while \(account ?? "no account") was signed in"
                }
                state.history.record(
                    account: writtenUnder, device: device, key: write.key, value: write.value,
                    parent: shown[write.key], step: state.step, forgiven: forgiven)
                state.keys.append(write.key)
            }
        }
        note(
            "\(action.name): \(writes.isEmpty ? "nothing to do" : writes.map(\.description).joined(separator: ", "))"
                + (diedInside ? " (then the app died inside a write)" : "")
                + (refused ? " (then a write failed: the disk is full)" : ""),
            device: device)
        if diedInside {
            crashIfDiedWriting(device)
            return
        }
        if account != nil, let saved = writes.first(where: { $0.value != nil }) {
            await checkNotUpToDate(device, app, after: saved)
        }
    }

    /// Whether a pause waits for the user to act: the app's data deleted in Settings, another account's data.
    static func awaitsTheUser(_ cause: SweptStatus.Cause) -> Bool {
        cause == .userDeletedZone || cause == .accountChanged
    }

    /// The user does what a pause that waits for them asks.
    ///
    /// Turning sync on again after the app's data was deleted: if the app takes it, the values it holds may be on
    /// the server again, and must be unless a later rule forgives them
    /// (``SweepHistory/deviceReuploads(_:account:holding:step:)``). Starting afresh for the account signed in: the
    /// data of the account left goes aside (its writes were forgiven when the device left it), and what the device
    /// kept for the account signed in comes back.
    ///
    /// - Parameters:
    ///   - cause: The pause.
    ///   - device: The device.
    ///   - app: Its app.
    func userAnswers(_ cause: SweptStatus.Cause, _ device: Int, _ app: App) async {
        let held = Set(await app.snapshot().values)
        let answer = cause == .accountChanged ? "starts afresh for the account signed in" : "turns sync on again"
        var took: Bool
        let crashPoint = state.withLock { $0.devices[device].crashPoint }
        let refusedBefore = crashPoint.writesRefused
        do {
            took = try await cause == .accountChanged ? app.userStartsAfresh() : app.userTurnsSyncOnAgain()
        } catch  where crashPoint.hasTripped || crashPoint.writesRefused > refusedBefore {
            // Died inside the answer, or a write of it failed for want of space: taken as given (below).
            took = true
        } catch {
            fail(.appFailed, "the user \(answer) on device-\(device), and the app threw \(error)")
            return
        }
        // The app died inside the answer (it threw, or a write after the answer was refused): whether its next launch
        // still waits for the user is its own. The answer is taken as given, the lenient reading: the rules it
        // frees the app from (the zone's creation, what the user deleted going up again) hold again only at the
        // next deletion, and the heal answers any pause the relaunched app still shows.
        let diedInside = state.withLock { $0.devices[device].crashPoint.hasTripped }
        if diedInside { took = true }
        defer { if diedInside { crashIfDiedWriting(device) } }
        guard took, let account = account(of: device) else {
            note("the user \(answer): nothing to do", device: device)
            return
        }
        state.withLock {
            if cause == .userDeletedZone {
                $0.history.deviceReuploads(device, account: account, holding: held, step: $0.step)
                // The user's word on the device, for the zone rule (``creatingZone(for:device:generation:)``).
                $0.zoneClock += 1
                $0.userAnswered[device, default: [:]][account] = $0.zoneClock
            } else {
                // Started afresh with the account signed in: what the device heard of that account's zone before,
                // the app heard while paused for another account's data, and ignored. To the app the zone is new.
                $0.heardZoneThere[device]?[account] = nil
            }
        }
        note(
            "the user \(answer): \(held.count) item(s) shown before" + (diedInside ? " (the app died inside it)" : ""),
            device: device)
    }

    /// Two devices of one account act one after the other, before either syncs: what makes the same item edited
    /// in two places, and so conflicts (an app's actions that favour what was edited last make it likelier).
    func actOnTwoDevices(first: Int) async {
        let other = state.withLock { state -> Int? in
            let account = state.devices[first].session.account
            let others = state.devices.indices.filter {
                $0 != first && account != nil && state.devices[$0].session.account == account
            }
            return others.isEmpty ? nil : others[state.random.int(below: others.count)]
        }
        await act(on: first)
        guard let other else { return }
        // A moment later: two edits at one instant are a tie no real clock makes.
        cloud.clock.advance(by: 1)
        await act(on: other)
    }

    // MARK: Syncs

    /// A sync the app asks for: a send or a fetch.
    func sync(_ device: Int, sending: Bool) async {
        guard let engine = await engine(device) else { return }
        guard !engine.isInOperation else {
            // Inside this engine's own request: a call now would wait for the request that waits for it.
            note("\(sending ? "sendChanges" : "fetchChanges") waits: an operation is under way", device: device)
            return
        }
        note(sending ? "sendChanges()" : "fetchChanges()", device: device)
        do {
            if sending { try await engine.sendChanges() } else { try await engine.fetchChanges() }
        } catch {
            note("\(sending ? "sendChanges" : "fetchChanges") threw \(error)", device: device)
        }
    }

    /// Time passes, and the scheduler runs what is due: the automatic syncs, retries and state updates.
    func tick() async {
        cloud.clock.advance(by: Double(draw { $0.int(below: 300) }))
        note("the scheduler runs what is due")
        await cloud.scheduler.runDue(maximumRuns: 500)
    }

    // MARK: Crashes

    /// Arms a crash of a device: at one of its next requests (before it leaves, or after the server applied it), or
    /// before its delegate handles one of the next events.
    func armCrash(_ device: Int) {
        let what = state.withLock { state -> String in
            if state.random.chance(0.5) {
                let remaining = 1 + state.random.int(below: 4)
                let afterApply = state.random.chance(0.5)
                state.devices[device].crashAtRequest = (remaining, afterApply)
                return
                    "a crash armed at its request \(remaining) from now, \(afterApply ? "after" : "before") it applies"
            }
            let remaining = 1 + state.random.int(below: 8)
            state.devices[device].crashAtEvent = remaining
            return "a crash armed before its delegate handles the event \(remaining) from now"
        }
        note(what, device: device)
    }

    /// Arms a crash inside one of the app's own writes, a few writes from now (``SweepCrashPoint``); or, a third of
    /// the time when disks fill (``DelegateSweep/Configuration/fullDisks``), fills the device's disk instead: the
    /// next few writes fail as on a full disk, now and then many more (a disk that stays full for a while).
    ///
    /// - Parameter device: The device.
    func armWriteCrash(_ device: Int) {
        let fullDisks = sweep.configuration.fullDisks
        let (writes, crashPoint, fullFor) = state.withLock { state -> (Int, SweepCrashPoint, Int?) in
            let writes = state.random.int(below: 6)
            // From the disk's own generator: the run's draws are the same whether or not the disk fills.
            guard fullDisks, state.diskRandom.chance(1.0 / 3) else {
                return (writes, state.devices[device].crashPoint, nil)
            }
            let lasting = [1, 1, 1, 8][state.diskRandom.int(below: 4)]
            return (writes, state.devices[device].crashPoint, (writes + 1) * lasting)
        }
        if let fullFor {
            crashPoint.fillDisk(forWrites: fullFor)
            note("its disk full for its next \(fullFor) write(s)", device: device)
            return
        }
        crashPoint.arm(afterWrites: writes)
        note("a crash armed inside its own write \(writes + 1) from now", device: device)
    }

    // MARK: The network

    /// How long an outage lasts, in seconds: ten minutes, an hour or four hours, each as likely.
    static var outageSeconds: [Int] { [600, 3600, 14_400] }

    /// Takes the next device of a reconnection under way off its list.
    ///
    /// - Parameter state: The run's state.
    /// - Returns: The device, and whether its app still runs (one that died meanwhile is not relaunched by the
    ///   network's return), or `nil` when none is left.
    static func takeNextReconnecting(_ state: inout State) -> (device: Int, running: Bool)? {
        guard let next = state.reconnecting?.others.first else { return nil }
        state.reconnecting?.others.removeFirst()
        return (next, state.devices[next].app != nil)
    }

    /// The network goes, for ten minutes, an hour or four hours: on the device, or half the time on every device
    /// signed into its account (a household's Wi-Fi, a flight). An app launched, or told its account changed, in the
    /// spell cannot fetch, and what the user writes waits; when it ends, each device's first request may be a send
    /// or a fetch, whichever the user or the scheduler asks for first (``SweepFaults/cutOff(_:until:)``), and a
    /// household's apps send at once, together (``reconnectWhereDue()``).
    ///
    /// - Parameter device: The device.
    func outage(_ device: Int) {
        let (cut, seconds) = state.withLock { state -> ([Int], Int) in
            let household = state.random.chance(0.5)
            let seconds = Self.outageSeconds[state.random.int(below: Self.outageSeconds.count)]
            let account = state.devices[device].session.account
            let cut = state.devices.indices.filter {
                $0 == device || (household && account != nil && state.devices[$0].session.account == account)
            }
            return (cut, seconds)
        }
        cutOff(cut, forSeconds: seconds)
    }

    /// In a run that has outages, a third of the devices are first opened offline (on a flight, in a dead spot):
    /// each for a spell of its own, drawn by a generator of its own so that the run's other draws are as they were.
    func cutOffFirstLaunches() {
        guard (weights.kinds[.outage] ?? 0) > 0 else { return }
        let spells = state.withLock { state in
            state.devices.indices.compactMap { index -> (Int, Int)? in
                guard state.networkRandom.chance(1.0 / 3) else { return nil }
                return (index, Self.outageSeconds[state.networkRandom.int(below: Self.outageSeconds.count)])
            }
        }
        for (device, seconds) in spells { cutOff([device], forSeconds: seconds) }
    }

    /// Cuts devices off the network for a spell, and notes it.
    ///
    /// - Parameters:
    ///   - devices: The devices.
    ///   - seconds: How long.
    private func cutOff(_ devices: [Int], forSeconds seconds: Int) {
        let end = cloud.clock.now().addingTimeInterval(Double(seconds))
        let names = state.withLock { state in
            state.outages.append((devices, end))
            return devices.map { state.devices[$0].name }
        }
        for name in names { faults.cutOff(name, until: end) }
        note("the network goes for \(seconds / 60) min on " + names.joined(separator: ", "))
    }

    /// The outages that ended: the network is back. A household's apps that run, signed in, and that no other spell
    /// still cuts off, send what waited at once, together (CKSyncEngine does by itself; an app that syncs by hand
    /// does as it watches the network's path): the first one's send (one with changes waiting, if any), and each
    /// other's inside one of its requests, as two phones on one Wi-Fi reconnect in the same second (or after it,
    /// when it sent nothing).
    func reconnectWhereDue() async {
        let now = cloud.clock.now()
        let ended = state.withLock { state -> [[Int]] in
            let ended = state.outages.filter { $0.end <= now }.map(\.devices)
            state.outages.removeAll { $0.end <= now }
            return ended
        }
        for devices in ended where devices.count > 1 {
            let online = state.withLock { state in
                devices.compactMap { device -> (Int, String, App)? in
                    let name = state.devices[device].name
                    guard state.devices[device].session.account != nil, let app = state.devices[device].app,
                        !faults.isOffline(name)
                    else { return nil }
                    return (device, name, app)
                }
            }
            // The devices with changes waiting first: the one whose send goes first has requests to wait in.
            var herd: [(device: Int, name: String, waiting: Bool)] = []
            for (device, name, app) in online {
                herd.append((device, name, await !app.syncEngine.state.pendingRecordZoneChanges.isEmpty))
            }
            herd = herd.filter(\.waiting) + herd.filter { !$0.waiting }
            guard herd.count > 1, let first = herd.first?.device else { continue }
            note("the network is back: \(herd.map(\.name).joined(separator: ", ")) send at once")
            state.withLock { $0.reconnecting = (first, herd.dropFirst().map(\.device)) }
            await sync(first, sending: true)
            while let (next, running) = state.withLock({ Self.takeNextReconnecting(&$0) }) {
                if running { await sync(next, sending: true) }
            }
            state.withLock { $0.reconnecting = nil }
            if failed { return }
        }
    }

    // MARK: Accounts

    /// The user signs in, out, or into the other account; the app reacts at once, as to `CKAccountChanged`.
    func changeAccount(of device: Int) async {
        let accounts = sweep.configuration.accounts
        let current = account(of: device)
        let next = draw { random -> String? in
            guard let current else { return random.element(of: accounts) }
            let others = accounts.filter { $0 != current }
            return random.chance(0.4) || others.isEmpty ? nil : random.element(of: others)
        }
        if let current {
            let server = serverSnapshot(of: current) ?? [:]
            state.withLock { $0.history.deviceLeft(device, account: current, server: server, step: $0.step) }
        }
        let session = state.withLock { $0.devices[device].session }
        if let next, let id = try? AccountID(next) {
            state.withLock { _ = $0.devices[device].accountsSignedInto.insert(next) }
            session.signIn(id)
        } else {
            session.signOut()
        }
        note(next.map { "signs into \($0)" } ?? "signs out", device: device)
        if let app = state.withLock({ $0.devices[device].app }) { await react(app) }
        cloud.scheduler.scheduleAccountChecks()
    }

    /// An app's reaction to an account change: a fetch with its engine, and with the new engine it made if it made
    /// one while handling the change (as Apple's sample does after a switch). An engine in the middle of a request
    /// (this step runs inside it) notices at its next one.
    func react(_ app: App) async {
        var fetched: Set<ObjectIdentifier> = []
        for _ in 0..<3 {
            let engine = await app.syncEngine
            guard fetched.insert(ObjectIdentifier(engine)).inserted else { return }
            guard !engine.isInOperation else {
                // The change came in the middle of this engine's request: the app reacts once it is over.
                if let device = device(of: engine) { state.withLock { $0.devices[device].reactionDue = true } }
                return
            }
            if let error = await quietly({ try await engine.fetchChanges() }) {
                note("its fetch after the change threw \(error)", device: device(of: engine))
            }
        }
    }

    /// The reactions to account changes that came in the middle of a device's own request, once it is over.
    func reactWhereDue() async {
        let due = state.withLock { state in
            state.devices.indices.filter { state.devices[$0].reactionDue }.map { index in
                state.devices[index].reactionDue = false
                return (index, state.devices[index].app)
            }
        }
        for (_, app) in due {
            if let app { await react(app) }
        }
    }

    /// The device an engine syncs for, from its container.
    func device(of engine: PSSyncEngine) -> Int? {
        (engine.database.container as? SweepContainer)?.device
    }

    // MARK: The server

    /// Every zone of an account is deleted, with one reason: by an app (`deleted`), by the user in Settings
    /// (`purged`), or by an encrypted-data reset.
    func deleteZones() async {
        let accounts = sweep.configuration.accounts
        let (account, reason) = draw { random in
            (
                random.element(of: accounts) ?? "alice",
                weights.drawReason(&random)
            )
        }
        guard let id = try? AccountID(account),
            let zones = try? await PSDatabase(container: cloud.baseContainer(session: AccountSession(account: id)))
                .allRecordZones().map(\.zoneID).filter({ $0 != .default }),
            !zones.isEmpty
        else { return }
        var held: [Int: Set<String>] = [:]
        var shown: Set<String> = []
        if reason == .encryptedDataReset {
            let count = state.withLock { $0.devices.count }
            for device in 0..<count where self.account(of: device) == account {
                guard let app = await app(device) else { continue }
                let values = Set(await app.snapshot().values)
                // A device that never fetched (opened offline, say) cannot learn of the reset (a fetch from no
                // database token reports no deletion), so it owes nothing again; but what it shows is not lost.
                shown.formUnion(values)
                if await app.syncEngine.hasDatabaseChangeToken { held[device] = values }
            }
        }
        let server = serverSnapshot(of: account) ?? [:]
        state.withLock {
            $0.history.zoneDeleted(
                account: account, reason: reason, step: $0.step, server: server, heldByDevices: held, shown: shown,
                staysDeleted: reason == .purged || (reason == .deleted && App.waitsForTheUserAfterAnAppsDeletion))
        }
        state.withLock {
            if reason == .encryptedDataReset {
                _ = $0.resetAccounts.insert(account)
            } else {
                _ = $0.purgedAccounts.insert(account)
            }
            $0.zoneClock += 1
            let waited = reason == .purged || (reason == .deleted && App.waitsForTheUserAfterAnAppsDeletion)
            $0.zoneDeletions[account, default: []].append(($0.zoneClock, waited))
        }
        note("\(account)'s zones \(zones.map(\.zoneName).sorted()) deleted (\(reason))")
        for zone in zones {
            try? await cloud.deleteZone(zone, reason: reason, account: account)
        }
    }

    /// The server refuses one written item for good from now on (`serverRejectedRequest` at every save).
    func refuseARecord() {
        let key = state.withLock { state in
            state.keys.isEmpty ? nil : state.keys[state.random.int(below: state.keys.count)]
        }
        guard let key else { return }
        faults.refuseForGood(key)
        note("the server refuses \(key) for good from now on")
    }

    /// An account's items on the server, as the app shows them, or `nil` (and a failed run) if they cannot be read.
    func serverSnapshot(of account: String) -> [String: String]? {
        serverRecords(of: account).map(sweep.serverSnapshot)
    }

    /// An account's records on the server; `nil`, and the run failed, when its database cannot be read.
    func serverRecords(of account: String) -> [PSRecord]? {
        do {
            return try cloud.records(of: account)
        } catch {
            fail(.convergence, "\(account)'s database could not be read: \(error)")
            return nil
        }
    }
}

import Synchronization

extension SweepRun {
    // MARK: Around each request

    func beforeRequest(device: Int, generation: Int) async -> Bool {
        // An app that died inside a write of its own sends nothing more.
        if state.withLock({ $0.devices[device].generation == generation }), crashIfDiedWriting(device) { return true }
        let (crash, interleave) = state.withLock { state -> (Bool, Bool) in
            guard state.devices[device].generation == generation, state.quiet == 0 else { return (false, false) }
            var crash = false
            if var armed = state.devices[device].crashAtRequest, armed.remaining > 0 {
                armed.remaining -= 1
                state.devices[device].crashAtRequest = armed
                if armed.remaining == 0 {
                    crash = !armed.afterApply
                    if crash { state.devices[device].crashAtRequest = nil }
                }
            }
            let interleave =
                !crash && !state.nested
                && state.random.chance(min(1, sweep.configuration.interleaving * Double(weights.interleavingFactor)))
            if interleave { state.nested = true }
            return (crash, interleave)
        }
        if crash {
            self.crash(device, "before its request left")
            return true
        }
        // A household back online: another device's send runs inside this one's request, half the time.
        let herdmate = state.withLock { state -> (device: Int, name: String)? in
            guard !crash, !interleave, !state.nested, state.quiet == 0, state.reconnecting?.first == device,
                state.devices[device].generation == generation, state.reconnecting?.others.isEmpty == false,
                state.random.chance(0.5), let (next, running) = Self.takeNextReconnecting(&state), running
            else { return nil }
            state.nested = true
            return (next, state.devices[next].name)
        }
        if let herdmate {
            note("its request waits: \(herdmate.name), back online too, sends first", device: device)
            await PSSyncEngine.outsideEveryOperation { await sync(herdmate.device, sending: true) }
            state.withLock { $0.nested = false }
        } else if interleave {
            note("its request waits: another device's step runs first", device: device)
            await PSSyncEngine.outsideEveryOperation { await takeStep(besides: device) }
            state.withLock { $0.nested = false }
        }
        // The step in between may have been this device's, and killed it inside a write: its request never leaves.
        if herdmate != nil || interleave, state.withLock({ $0.devices[device].generation == generation }),
            crashIfDiedWriting(device)
        {
            return true
        }
        return false
    }

    func afterRequest(device: Int, generation: Int) async -> Bool {
        let crash = state.withLock { state -> Bool in
            guard state.devices[device].generation == generation, state.quiet == 0,
                let armed = state.devices[device].crashAtRequest, armed.remaining == 0, armed.afterApply
            else { return false }
            state.devices[device].crashAtRequest = nil
            return true
        }
        if crash { self.crash(device, "after the server applied its request, before the answer arrived") }
        return crash
    }

    // MARK: Around each event

    /// What an engine does: made (an app may replace its engine: the new one's state is what the app persists
    /// now), and what it tells its delegate: pairs of `will…` and `did…`, the last state a delegate handled, deletes
    /// the server confirmed, deletions a device learned of, and crashes armed at an event. A launch that is over is
    /// not watched.
    func note(_ activity: PSSyncScheduler.Activity, of engine: PSSyncEngine) {
        guard let container = engine.database.container as? SweepContainer, !container.isDead else { return }
        let device = container.device
        let time = elapsed
        var crashNow = false
        var unpaired: String?
        state.withLock { state in
            guard state.devices[device].generation == container.generation else { return }
            let key = ObjectIdentifier(engine)
            if state.engines[key]?.engine !== engine {
                state.engines[key] = EngineRecord(engine: engine, device: device, generation: container.generation)
            }
            switch activity {
            case .engineCreated where state.devices[device].crashPoint.hasTripped:
                // Made after the app died inside a write of its own: what it was made from may never have been
                // persisted, and the next launch owes the state last kept before the death.
                break
            case .engineCreated:
                state.devices[device].currentEngine = key
                let restored = engine.restoredPendingRecordZoneChanges
                let refused = state.devices[device].crashPoint.writesRefused
                if refused > state.devices[device].refusedWhenOwed, let owed = state.devices[device].lastHandledPending
                {
                    // Made from the state the app holds in memory after a write failed for want of space: its files
                    // may hold only an older one. The next launch owes what both hold.
                    state.devices[device].lastHandledPending = owed.filter(Set(restored).contains)
                } else {
                    state.devices[device].lastHandledPending = restored
                    state.devices[device].refusedWhenOwed = refused
                }
            case .willDeliver(let event):
                state.timeline.append(.event(step: state.step, time: time, device: device, event))
                if !state.devices[device].crashPoint.hasTripped, state.devices[device].currentEngine == key,
                    Self.beginsAnOperation(event)
                {
                    // The engine checked the account signed in as its fetch or send began, and told of a change
                    // first if there was one: the app's data is that account's. (A launch whose engine was made from
                    // a state of the account signed in tells of none: a write after a later switch the app had not
                    // heard of yet was taken for the account switched to, not the one the app wrote it for: swarm
                    // seed 5829, once outages came.) Read as the event is about to be handled: no request of this
                    // engine came between the check and now, unless the app made one while it handled the change
                    // (a nested step may run at a request, and switch the device).
                    state.devices[device].appAccount = .some(state.devices[device].session.account?.rawValue)
                }
                if let pair = Self.pair(of: event) {
                    let before = state.engines[key]?.open[pair.name] ?? 0
                    let open = before + (pair.opens ? 1 : -1)
                    state.engines[key]?.open[pair.name] = open
                    if open < 0 || open > 1 {
                        unpaired =
                            "\(state.devices[device].name)'s engine posted \(event) with \(before) \(pair.name) open"
                    }
                }
                if state.quiet == 0, let remaining = state.devices[device].crashAtEvent {
                    state.devices[device].crashAtEvent = remaining > 1 ? remaining - 1 : nil
                    crashNow = remaining <= 1
                }
            case .delivered(let event):
                let crashPoint = state.devices[device].crashPoint
                if state.devices[device].currentEngine == key {
                    noteFetchBoundary(
                        event, refused: crashPoint.writesRefused, succeeded: engine.lastFetchSucceeded,
                        device: device, &state)
                }
                noteDelivered(
                    event, device: device, engine: key, diedInside: crashPoint.hasTripped,
                    refusedSinceOwed: crashPoint.writesRefused > state.devices[device].refusedWhenOwed, &state)
            }
        }
        if case .willDeliver(let event) = activity { sweep.configuration.trace?("  device-\(device) event \(event)") }
        if let unpaired { fail(.eventsPaired, unpaired) }
        if crashNow {
            crash(device, "before its delegate handled the event")
        } else {
            crashIfDiedWriting(device)
        }
    }

    /// Where the newest engine's fetches begin and end, for the status's rule of a disk full: the app may wait for
    /// room only while one of its writes was refused since the end of its last fetch that went through with none
    /// refused (``SweptStatus/Detail/waitingForRoom``).
    ///
    /// - Parameters:
    ///   - event: The event the app handled.
    ///   - refused: How many of the launch's writes its disk has refused so far.
    ///   - succeeded: Whether the engine's last fetch went through.
    ///   - device: The device.
    ///   - state: The run's state.
    private func noteFetchBoundary(
        _ event: PSSyncEngine.Event, refused: Int, succeeded: Bool, device: Int, _ state: inout State
    ) {
        switch event {
        case .willFetchChanges:
            state.devices[device].refusedWhenFetchBegan = refused
        case .didFetchChanges:
            if succeeded, state.devices[device].refusedWhenFetchBegan == refused,
                let account = state.devices[device].session.account?.rawValue
            {
                state.devices[device].refusedAtLastCleanFetch[account] = refused
            }
            state.devices[device].refusedWhenFetchBegan = nil
        default:
            break
        }
    }

    /// Whether an event begins a fetch or a send, which the engine posts only once it has checked the account
    /// signed in (and told of a change first, if there was one).
    ///
    /// - Parameter event: The event.
    /// - Returns: Whether it is `willFetchChanges` or `willSendChanges`.
    private static func beginsAnOperation(_ event: PSSyncEngine.Event) -> Bool {
        switch event {
        case .willFetchChanges, .willSendChanges: true
        default: false
        }
    }

    /// What a handled event tells the oracle.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - device: The device.
    ///   - key: Its engine.
    ///   - diedInside: Whether the app died inside one of its own writes while it handled the event: a state it was
    ///     given then may not be persisted, and the next launch owes only the one before. (The rest holds whatever
    ///     the app did: the server's answers, an engine that forgot its pending changes at a change of account.)
    ///   - refusedSinceOwed: Whether a write of the app failed as on a full disk since the state owed was last set:
    ///     a state it is given now may not be persisted (no app can write it; one that went past a page it could not
    ///     store keeps the state before it), or may be by a later write from memory. The next launch owes what this
    ///     state and the one owed before both hold, for the rest of the launch.
    ///   - state: The run's state.
    private func noteDelivered(
        _ event: PSSyncEngine.Event, device: Int, engine key: ObjectIdentifier, diedInside: Bool,
        refusedSinceOwed: Bool,
        _ state: inout State
    ) {
        switch event {
        case .stateUpdate where diedInside:
            break
        case .stateUpdate(let update) where refusedSinceOwed && state.devices[device].currentEngine == key:
            // Since a write failed for want of space, a state may not be kept (no app can write it, and one past a
            // page it could not store keeps the state before), or may be later, from memory: the next launch owes
            // what both this state and the one owed before hold.
            let held = Set(update.stateSerialization.pendingRecordZoneChanges ?? [])
            state.devices[device].lastHandledPending = state.devices[device].lastHandledPending?.filter(held.contains)
        case .stateUpdate(let update) where state.devices[device].currentEngine == key:
            state.devices[device].lastHandledPending = update.stateSerialization.pendingRecordZoneChanges
            state.devices[device].refusedWhenOwed = state.devices[device].crashPoint.writesRefused
        case .accountChange(let change):
            // The engine forgot its pending changes at the change: a delegate owes none of them to the next launch.
            if state.devices[device].currentEngine == key { state.devices[device].lastHandledPending = [] }
            // Died inside its handling, the app may or may not have kept what it heard: which account it believes in
            // is its own. Its next launch's engine, made from the state of before, reports the change again if the
            // account signed in is another; made from nothing, it reports the account signed in. Until then a write
            // is taken for the account signed in, as on a device that has heard of none (only a write made before
            // that launch's first fetch reaches the server, with the account switched since, could be taken wrong).
            guard !diedInside else {
                state.devices[device].appAccount = nil
                break
            }
            let account = state.devices[device].session.account?.rawValue
            switch change.changeType {
            case .signIn:
                // What the user wrote signed into no account is the app's to upload to the account it sees signed
                // in next (the device may have passed through others while the app was not running).
                if let account { state.history.attribute(device: device, to: account) }
                state.devices[device].appAccount = .some(account)
            case .switchAccounts:
                state.devices[device].appAccount = .some(account)
            case .signOut:
                state.devices[device].appAccount = .some(nil)
            }
        case .sentRecordZoneChanges(let sent):
            for (key, value) in sweep.serverSnapshot(sent.savedRecords) {
                state.history.heardUp(device: device, key: key, value: value)
            }
            // A save answered with a conflict whose record holds the device's own value (its earlier save landed
            // unheard): the device heard the server holds it.
            let conflicts = sent.failedRecordSaves.compactMap { failed in
                failed.error.code == .serverRecordChanged ? failed.error.serverRecord : nil
            }
            for (key, value) in sweep.serverSnapshot(conflicts) {
                state.history.heardInAConflict(device: device, key: key, value: value)
            }
            if !sent.savedRecords.isEmpty { Self.noteZoneThere(device: device, engine: key, &state) }
            if let account = state.devices[device].session.account?.rawValue,
                sent.failedRecordSaves.contains(where: { $0.error.code == .userDeletedZone })
            {
                // A save refused because the user deleted the zone is news of the deletion, as a fetch's would be.
                state.history.deviceLearnedOfDeletion(device, account: account, step: state.step)
            }
            for id in sent.deletedRecordIDs {
                state.history.confirmDelete(device: device, key: id.recordName, foundNothing: nil)
            }
            // The record was gone, or its whole zone (deleted by an app, or by the user): the delete removed nothing.
            for (id, error) in sent.failedRecordDeletes
            where [.unknownItem, .zoneNotFound, .userDeletedZone].contains(error.code) {
                state.history.confirmDelete(device: device, key: id.recordName, foundNothing: error.code.name)
            }
        case .fetchedRecordZoneChanges(let fetched):
            for (key, value) in sweep.serverSnapshot(fetched.modifications.map(\.record)) {
                state.history.heardUp(device: device, key: key, value: value)
            }
            for deletion in fetched.deletions {
                state.history.heardGone(device: device, key: deletion.recordID.recordName)
            }
            if !fetched.modifications.isEmpty { Self.noteZoneThere(device: device, engine: key, &state) }
        case .sentDatabaseChanges(let sent):
            if !sent.savedZones.isEmpty { Self.noteZoneThere(device: device, engine: key, &state) }
        case .fetchedDatabaseChanges(let changes):
            guard let account = state.devices[device].session.account?.rawValue else { return }
            if changes.deletions.contains(where: { $0.reason != .encryptedDataReset }) {
                state.history.deviceLearnedOfDeletion(device, account: account, step: state.step)
            }
            if changes.deletions.contains(where: { $0.reason == .encryptedDataReset }) {
                state.history.deviceLearnedOfReset(device, account: account)
            }
        default:
            break
        }
    }

    /// Notes that a device heard its account's zone is there (``State/heardZoneThere``), from its current engine: a
    /// replaced engine's news the app ignores.
    private static func noteZoneThere(device: Int, engine key: ObjectIdentifier, _ state: inout State) {
        guard state.devices[device].currentEngine == key,
            let account = state.devices[device].session.account?.rawValue
        else { return }
        state.zoneClock += 1
        state.heardZoneThere[device, default: [:]][account] = state.zoneClock
    }

    /// A device is about to create a zone of `user`'s database. For an app that waits for the user after a
    /// deletion of its zone (``SweptApp/waitsForTheUserAfterAnAppsDeletion``), a zone deleted since the device last
    /// heard it was there is created again only after the user's word on that device: created before, it undoes a
    /// deletion the user never answered, even empty, and what the device holds follows it. (A device that never
    /// heard that incarnation of the zone was there may create it: to it, the zone is new. One that heard of an
    /// earlier incarnation, which another deletion took, knows nothing of this one.) A rule of time, which the end
    /// state cannot show: the heal's rounds answer every pause, and then everything is back either way.
    ///
    /// - Parameters:
    ///   - user: The account the request is made for, or `nil` when unknown.
    ///   - device: The device.
    ///   - generation: Its launch.
    func creatingZone(for user: UserRecordID?, device: Int, generation: Int) {
        guard App.waitsForTheUserAfterAnAppsDeletion else { return }
        guard let account = account(ofRequestFor: user, device: device) else { return }
        let broken = state.withLock { state -> String? in
            // The first deletion after the device last heard the zone there took the incarnation it knew: one it
            // waits on, not answered there since, forbids the creation (a reset's does not: it uploads again).
            guard state.devices[device].generation == generation,
                let heard = state.heardZoneThere[device]?[account],
                let deletion = state.zoneDeletions[account]?.first(where: { $0.at > heard }), deletion.waited,
                (state.userAnswered[device]?[account] ?? 0) < deletion.at
            else { return nil }
            return "device-\(device) created \(account)'s zone again, deleted since it last heard the zone was there, "
                + "before the user turned sync on again there"
        }
        if let broken { fail(.purgedStaysDeleted, broken) }
    }

    /// Reads every account's items before a modify request that deletes, or, once a name was made again, saves
    /// (``SweepHistory/serverChanged(account:before:after:)``).
    func serverItems(before request: InterceptedCall) -> [String: [String: String]]? {
        guard case .modifyRecords(let saving, let deleting, _, _) = request,
            !deleting.isEmpty || (!saving.isEmpty && state.withLock { $0.history.namesMadeAgain })
        else { return nil }
        var items: [String: [String: String]] = [:]
        for account in sweep.configuration.accounts { items[account] = serverSnapshot(of: account) ?? [:] }
        return items
    }

    /// Gives the history what the request changed on each account's server.
    func noteServerChanges(since before: [String: [String: String]]) {
        for (account, items) in before {
            guard let after = serverSnapshot(of: account), after != items else { continue }
            state.withLock { $0.history.serverChanged(account: account, before: items, after: after) }
        }
    }

    /// The pair an event opens or closes, if any.
    static func pair(of event: PSSyncEngine.Event) -> (name: String, opens: Bool)? {
        switch event {
        case .willFetchChanges: ("fetch", true)
        case .didFetchChanges: ("fetch", false)
        case .willSendChanges: ("send", true)
        case .didSendChanges: ("send", false)
        case .willFetchRecordZoneChanges(let zone): ("fetch of zone \(zone.zoneID.zoneName)", true)
        case .didFetchRecordZoneChanges(let zone): ("fetch of zone \(zone.zoneID.zoneName)", false)
        default: nil
        }
    }
}

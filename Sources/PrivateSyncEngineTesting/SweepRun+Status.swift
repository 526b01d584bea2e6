import Synchronization

extension SweepRun {
    /// The account a device's request was made for: the one the engine asked for (a nested step may have switched
    /// the device since), or, when unknown, the one signed in now.
    ///
    /// - Parameters:
    ///   - user: The account the request was made for, or `nil` when unknown.
    ///   - device: The device.
    /// - Returns: The account's name, or `nil` when neither is known.
    func account(ofRequestFor user: UserRecordID?, device: Int) -> String? {
        let requestedFor = user.flatMap { user in
            sweep.configuration.accounts.first { (try? AccountID($0))?.userRecordID == user }
        }
        return requestedFor ?? account(of: device)
    }

    // MARK: The status, both directions

    func heard(_ causes: Set<SweptStatus.Cause>, for user: UserRecordID?, device: Int, generation: Int) {
        guard !causes.isEmpty else { return }
        // Filed under the account the request was made for: a nested step may have switched the device since.
        guard let account = account(ofRequestFor: user, device: device) else { return }
        state.withLock { state in
            guard state.devices[device].generation == generation else { return }
            state.devices[device].causesHeard[account, default: []].formUnion(causes)
        }
    }

    /// A request found the zone missing after an encrypted-data reset took it: the device may pause, as for a
    /// deletion (`userDeletedZone`). A reset and an app's deletion answer alike (`zoneNotFound`), and only the
    /// database's list tells them apart, which it cannot when it was read from no change token after the deletion
    /// (an expired token): an app that pauses then, as the demo app's mirror and its own engine do, asks the user
    /// rather than undo a deletion it cannot rule out. Its status is not a lie. (Before any deletion of the
    /// account's zone, a zone not found is one never created, and names no cause.)
    ///
    /// - Parameters:
    ///   - user: The account the request was made for, or `nil` when unknown.
    ///   - device: The device.
    ///   - generation: Its launch.
    func foundZoneMissing(for user: UserRecordID?, device: Int, generation: Int) {
        guard let account = account(ofRequestFor: user, device: device) else { return }
        state.withLock { state in
            guard state.devices[device].generation == generation, state.resetAccounts.contains(account) else { return }
            state.devices[device].causesHeard[account, default: []].insert(.userDeletedZone)
        }
    }

    /// After each step, every running app's status against what the sweep knows of its device: never off (every
    /// device wants sync), paused for the account exactly while no account is signed in, any other pause only for a
    /// cause this device met (``SweptStatus/Cause``), waiting only after a transient failure it met, and waiting for
    /// room only after a write its disk refused since its last fetch that went through; and never up to date while
    /// it shows a change of its user that has not gone up (``unsentChange(shownBy:device:)``; right after a save,
    /// ``checkNotUpToDate(_:_:after:)``). An app that shows no status is not checked.
    func checkStatuses() async {
        let apps = state.withLock { state in
            state.devices.indices.compactMap { index in state.devices[index].app.map { (index, $0) } }
        }
        for (device, app) in apps {
            guard let status = await app.status() else { continue }
            if let lie = lie(in: status, of: device) {
                fail(.honestStatus, lie)
                return
            }
            if status == .on(.upToDate), let behind = await unsentChange(shownBy: app, device: device) {
                fail(.honestStatus, "device-\(device) reads \(status), but \(behind)")
                return
            }
        }
    }

    /// A change the user made on a device that has not gone up, as the device shows it: a device that shows one is
    /// behind, whatever its engine believes (the other direction of the causes' check, after any step;
    /// ``checkNotUpToDate(_:_:after:)`` checks only right after a save). Checked only once the app has heard of the
    /// account signed in: until then it shows another account's state.
    /// - A save it shows, which the server of the account does not hold, and the device never heard the server held
    ///   (``SweepHistory/stepOfUnsentSave(device:account:key:value:)``). A value the server holds now, or that the
    ///   device heard it held (its save came back saved or in a conflict, or a fetch brought it: another device may
    ///   have overwritten it since, and the device is then behind only on what it has not fetched, which no status
    ///   can know), is not one.
    /// - An item it shows nothing for, whose value on the server is the one the device's user deleted there, the
    ///   delete neither confirmed nor heard of in a fetch, nor excused by a rule of the history
    ///   (``SweepHistory/stepOfUnsentDelete(device:account:key:serverValue:)``).
    ///
    /// - Parameters:
    ///   - app: The device's app.
    ///   - device: The device.
    /// - Returns: The change, in words, or `nil` when the device shows none.
    func unsentChange(shownBy app: App, device: Int) async -> String? {
        // Only while the app has heard of the account signed in: until then it shows another account's state.
        guard let account = account(of: device),
            state.withLock({ $0.devices[device].appAccount }) == .some(.some(account)),
            let server = serverSnapshot(of: account)
        else { return nil }
        let refused = faults.refused
        let shown = await app.snapshot()
        // The items the device and the server differ on, in order of key: the device shows nothing (a delete may
        // wait), or another value (a save may).
        let differing = Set(server.keys).union(shown.keys).filter { server[$0] != shown[$0] && !refused.contains($0) }
        return state.withLock { state in
            for key in differing.sorted() {
                if let value = shown[key] {
                    guard
                        let step = state.history.stepOfUnsentSave(
                            device: device, account: account, key: key, value: value)
                    else { continue }
                    return "it shows \(key) = \(value), written there at step \(step), which \(account)'s server does "
                        + "not hold (\(server[key].map { "it holds \($0)" } ?? "it holds nothing")) and the device "
                        + "never heard went up: the save is still to go up"
                } else if let value = server[key],
                    let step = state.history.stepOfUnsentDelete(
                        device: device, account: account, key: key, serverValue: value)
                {
                    return "it shows nothing for \(key), deleted there at step \(step), which \(account)'s server "
                        + "still holds as it was (\(value)) and never confirmed deleted: the delete is still to go up"
                }
            }
            return nil
        }
    }

    /// Right after the user saved something on a device signed in, before any sync: it cannot have gone up, so the
    /// device is not up to date (the other direction of ``checkSettledStatuses()``).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: Its app.
    ///   - write: A save the user just made there.
    func checkNotUpToDate(_ device: Int, _ app: App, after write: SweepWrite) async {
        guard let status = await app.status(), status == .on(.upToDate) else { return }
        fail(.honestStatus, "device-\(device) reads \(status) right after the user wrote \(write), before any sync")
    }

    /// Once everything has synced and no fault strikes: a device signed in reads on and up to date, whatever it met
    /// before (no cause holds now); one signed out reads paused for the account.
    func checkSettledStatuses() async {
        let count = state.withLock { $0.devices.count }
        for device in 0..<count {
            guard let app = await app(device), let status = await app.status() else { continue }
            let expected: SweptStatus = account(of: device) == nil ? .paused(.noAccount) : .on(.upToDate)
            guard status != expected else { continue }
            fail(
                .honestStatus,
                "device-\(device) reads \(status) once everything has synced with no fault; the truth is \(expected)")
            return
        }
    }

    /// What is untrue in a status shown on a device now, or `nil` when it holds.
    ///
    /// - Parameters:
    ///   - status: The status the app shows.
    ///   - device: The device.
    /// - Returns: The lie, in words.
    func lie(in status: SweptStatus, of device: Int) -> String? {
        let account = account(of: device)
        let (heard, purged, signedIntoAnother, refusedSinceCleanFetch) = state.withLock { state in
            (
                account.flatMap { state.devices[device].causesHeard[$0] } ?? [],
                account.map { state.purgedAccounts.contains($0) } ?? false,
                state.devices[device].accountsSignedInto.contains { $0 != account },
                state.devices[device].crashPoint.writesRefused
                    > account.flatMap { state.devices[device].refusedAtLastCleanFetch[$0] } ?? 0
            )
        }
        switch (status, account) {
        case (.off, _):
            return "device-\(device) reads off, but the user asked for sync"
        case (.paused(.noAccount), nil):
            return nil
        case (_, nil):
            return "device-\(device) reads \(status) while no account is signed in: nothing can sync"
        case (.paused(.noAccount), let account?):
            return "device-\(device) asks the user to sign in while \(account) is signed in"
        case (.paused(.userDeletedZone), _) where purged || heard.contains(.userDeletedZone):
            return nil
        case (.paused(.accountChanged), let account?):
            return signedIntoAnother
                ? nil : "device-\(device) reads \(status), but it has been signed into no account but \(account)"
        case (.paused(.transient), _):
            return "device-\(device) reads \(status): a transient failure is a cause to wait, never to pause"
        case (.on(.waiting), let account?) where !heard.contains(.transient):
            return
                "device-\(device) reads \(status), but none of its requests met a transient failure while \(account) "
                + "was signed in"
        case (.on(.waitingForRoom), _) where !refusedSinceCleanFetch:
            // The disk's cause is the device's, whatever account is signed in.
            return "device-\(device) reads \(status), but its disk refused no write since its last fetch went through"
        case (.paused(let cause), let account?) where !heard.contains(cause) && cause != .noAccount:
            return
                "device-\(device) reads \(status), but no request of it met that cause while \(account) was signed in"
        case (.paused, _), (.on, _):
            return nil
        }
    }
}

import DeviceStore
import FoundationEssentials
import PrivateCloud
import PrivateSync
import PrivateSyncTesting
import SimulatedWorld

extension Simulation {
    // MARK: Launching

    /// Cold-starts the app on a device. Some launches arm a crash for a later point of a sync.
    func launch(_ device: Device, why: String) {
        device.crashSwitch = CrashSwitch()
        let crashSwitch = device.crashSwitch
        let box = device.observed
        box.set(nil)
        let crashPlan: (CrashingContainer.Moment, Int)? =
            !healing && random.chance(0.15)

            ? (CrashingContainer.Moment.allCases[Int(random.next() % 3)], Int(random.next() % 12)) : nil
        let planted = options.hooks.wrapContainer
        let name = device.name
        do {
            let app = try world.launch(name, crashSwitch: crashSwitch) { base in
                var container = planted?(base, name) ?? base
                if let (moment, after) = crashPlan {
                    container = CrashingContainer(base: container, crashSwitch: crashSwitch, at: moment, after: after)
                }
                let observed = ObservedContainer(base: container)
                box.set(observed)
                return observed
            }
            device.app = app
            device.seen = ObservedContainer.Tally()
            trace(
                "\(name): \(why) → \(describe(app))"
                    + (crashPlan.map { ", will crash \($0.0.rawValue) #\($0.1)" } ?? ""))
            mark(.launch, name, "\(why) → \(describe(app))")
        } catch {
            device.app = nil
            fail(.noAcknowledgedWriteLost, "\(name) could not launch: \(error)")
        }
    }

    /// The running app of a device, launching it first if it is not running.
    func runningApp(_ device: Device) -> LaunchedApp? {
        if device.app == nil { launch(device, why: "opened by the user") }
        return device.app
    }

    func describe(_ app: LaunchedApp) -> String {
        guard let status = try? status(of: app) else { return "status unreadable" }
        return status.description
    }

    func status(of app: LaunchedApp) throws -> SyncStatus {
        try options.hooks.status?(app) ?? app.status()
    }

    func relaunch(_ device: Device, why: String) {
        device.app = nil
        launch(device, why: why)
    }

    func reinstall(_ device: Device) {
        let sync: Bool? = random.chance(0.7) ? true : (random.chance(0.5) ? false : nil)
        device.app = nil
        do {
            try world.device(device.name).reinstall(syncPreference: sync)
        } catch {
            return fail(.noAcknowledgedWriteLost, "\(device.name) could not be reinstalled: \(error)")
        }
        // The user deleted the app: what it held is no longer owed to this device.
        device.expected.removeAll()
        device.archivedNames = nil
        trace("\(device.name): reinstalled, sync \(sync.map { $0 ? "on" : "off" } ?? "unset")")
        mark(.install, device.name, "reinstalled")
        launch(device, why: "first launch after reinstall")
    }

    func upgrade(_ device: Device) {
        let entitlement = random.chance(0.85)
        do {
            let handle = try world.device(device.name)
            try handle.upgrade(
                to: .build(
                    version: handle.profile.build.version + 1,
                    withCloudKitFor: entitlement ? world.containerIdentifier : nil))
        } catch {
            return fail(.noAcknowledgedWriteLost, "\(device.name) could not be upgraded: \(error)")
        }
        trace("\(device.name): upgraded \(entitlement ? "with" : "WITHOUT") the entitlement")
        mark(.install, device.name, "upgraded \(entitlement ? "with" : "WITHOUT") the entitlement")
        relaunch(device, why: "launch after upgrade")
    }

    /// Kills the device's process now, then the user opens the app again.
    func crash(_ device: Device) {
        guard device.app != nil else { return }
        device.crashSwitch.crash()
        noteCrash(device, why: "crashed between steps")
    }

    /// After a crash (however it happened): count it, drop the app, relaunch, let a planted bug act.
    func noteCrash(_ device: Device, why: String) {
        result.crashes += 1
        accountTally(device)
        device.app = nil
        trace("\(device.name): \(why)")
        mark(.crash, device.name, why)
        launch(device, why: "relaunch after the crash")
        if let app = device.app { options.hooks.afterCrash?(app) }
    }

    // MARK: The user

    /// The user adds, edits or deletes a record on a device.
    func userWrite(_ device: Device) async {
        guard let app = runningApp(device) else { return }
        let schema = world.partition.schema
        let roll = random.next() % 100
        do {
            if roll < 55 || device.expected.isEmpty {
                let type = schema.recordTypes[Int(random.next() % UInt64(schema.recordTypes.count))]
                let fields = RecordFactory.fields(for: type, now: clock.now(), random: &random)
                let record = try app.add(type.name, fields: fields)
                let partition = world.partition.partition(of: type.name) ?? .userCreated
                written[record.name] = Written(
                    type: type.name, partition: partition, account: app.device.session.account)
                device.expected.insert(record.name)
                trace("\(device.name): add \(type.name) \(record.name.prefix(8)) (\(partition.rawValue))")
                mark(.write, device.name, "add \(type.name) \(record.name.prefix(8)) (\(partition.rawValue))")
                return
            }
            let names = try candidates(app)
            guard !names.isEmpty else { return }
            let name = names[Int(random.next() % UInt64(names.count))]
            guard let (record, _) = try app.find(name), let type = schema.recordType(named: record.type) else { return }
            if roll < 85 {
                var changes: [String: FieldValue?] = [:]
                for _ in 0..<(1 + Int(random.next() % 2)) {
                    let field = type.fields[Int(random.next() % UInt64(type.fields.count))]
                    changes[field.name] =
                        field.isOptional && random.chance(0.3)
                        ? .some(nil) : RecordFactory.value(of: field.type, now: clock.now(), random: &random)
                }
                try app.edit(name, setting: changes)
                trace(
                    "\(device.name): edit \(record.type) \(name.prefix(8)) \(changes.keys.sorted().joined(separator: ","))"
                )
                mark(.edit, device.name, "edit \(record.type) \(name.prefix(8))")
            } else {
                try app.delete(name)
                deleted.insert(name)
                device.expected.remove(name)
                trace("\(device.name): delete \(record.type) \(name.prefix(8))")
                mark(.delete, device.name, "delete \(record.type) \(name.prefix(8))")
            }
        } catch let error as StoreError where error.code == .recordTooLarge {
            trace("\(device.name): write refused: \(error.message)")
            mark(.write, device.name, "write refused: \(error.message)")
        } catch {
            fail(.noAcknowledgedWriteLost, "\(device.name): a write failed: \(error)")
        }
    }

    /// The records a user could pick on a device, in a fixed order.
    private func candidates(_ app: LaunchedApp) throws -> [String] {
        (try app.stores.userCreated.records().map(\.name) + app.stores.localOnly.records().map(\.name)).sorted()
    }

    func flipSwitch(_ device: Device) {
        guard let app = runningApp(device) else { return }
        let on = !app.record.syncWanted
        do {
            device.app = try app.setSyncEnabled(on)
            trace("\(device.name): switch turned \(on ? "on" : "off") → \(describe(device.app!))")
            mark(.toggle, device.name, "switch turned \(on ? "on" : "off")")
        } catch {
            fail(.noAcknowledgedWriteLost, "\(device.name): flipping the switch failed: \(error)")
        }
    }

    func changeAccount(_ device: Device) {
        do {
            let handle = try world.device(device.name)
            switch random.next() % 6 {
            case 0, 1:
                let account = accounts[Int(random.next() % UInt64(accounts.count))]
                try handle.signIn(account)
                trace("\(device.name): signed into \(account)")
                mark(.account, device.name, "signed into \(account)")
            case 2:
                try handle.signOut()
                trace("\(device.name): signed out")
                mark(.account, device.name, "signed out")
            case 3:
                guard handle.session.account != nil else { return }
                try handle.setAccountStatus(.restricted)
                trace("\(device.name): account restricted")
                mark(.account, device.name, "account restricted")
            case 4:
                guard handle.session.account != nil else { return }
                try handle.setAccountStatus(.temporarilyUnavailable)
                trace("\(device.name): account temporarily unavailable")
                mark(.account, device.name, "account temporarily unavailable")
            default:
                guard handle.session.account != nil else { return }
                try handle.setAccountStatus(.available)
                trace("\(device.name): account available")
                mark(.account, device.name, "account available")
            }
        } catch {
            fail(.noAcknowledgedWriteLost, "\(device.name): an account change failed: \(error)")
        }
    }

    /// The user acts on a paused status, as the settings copy tells them to.
    func resolvePause(_ device: Device) async {
        guard let app = device.app, let status = try? status(of: app), let reason = status.pauseReason else { return }
        do {
            switch reason {
            case .userDeletedZone:
                device.app = try app.setSyncEnabled(false).setSyncEnabled(true)
                trace("\(device.name): the user turned sync off and on after deleting iCloud data")
                mark(.toggle, device.name, "the user turned sync off and on after deleting iCloud data")
            case .quotaExceeded:
                await sync(device, force: true, why: "pull to refresh after freeing iCloud space")
            case .accountChanged:
                let handle = try world.device(device.name)
                let bound = try app.engine?.state().boundUser
                if random.chance(0.5), let previous = accounts.first(where: { $0.userRecordID == bound }) {
                    try handle.signIn(previous)
                    trace("\(device.name): signed back into \(previous)")
                    mark(.account, device.name, "signed back into \(previous)")
                } else {
                    device.archivedNames = nil
                    let archive = try app.startFreshForSignedInAccount()
                    trace(
                        "\(device.name): started afresh for \(handle.session.account?.rawValue ?? "?"), archived \(archive.records)"
                    )
                    mark(.account, device.name, "started afresh, archived \(archive.records)")
                }
            case .accountTemporarilyUnavailable, .accountRestricted:
                try world.device(device.name).setAccountStatus(.available)
                trace("\(device.name): account available again")
                mark(.account, device.name, "account available again")
            case .missingEntitlement, .noAccount, .storeCreationFailed, .containerUnusable:
                return
            }
        } catch {
            fail(.noAcknowledgedWriteLost, "\(device.name): resolving \(reason) failed: \(error)")
        }
    }

    // MARK: Syncing

    /// Runs a cycle on every device whose engine asks for one now.
    func syncDue() async {
        for device in devices {
            guard let engine = device.app?.engine, let next = engine.nextRunDate(), next <= clock.now() else {
                continue
            }
            await sync(device, force: false, why: "the engine asked")
        }
    }

    /// One engine cycle on a device, with invariant 6 and the pause check of invariant 5 on its result.
    func sync(_ device: Device, force: Bool, why: String) async {
        guard let app = runningApp(device), let engine = app.engine else { return }
        let before = try? engine.state()
        let tallyBefore = device.observed.tally ?? ObservedContainer.Tally()
        guard let report = await app.sync(force: force) else { return }
        let tallyAfter = device.observed.tally ?? ObservedContainer.Tally()
        accountTally(device)
        var line = "\(device.name): sync (\(why))"
        if report.ran {
            line +=
                " sent \(report.sentSaves)+\(report.sentDeletes) fetched \(report.fetchedModifications)+\(report.fetchedDeletions)"
            line += " → \(report.outcome?.encoded ?? "crashed")"
        } else {
            line += " skipped"
        }
        trace(line)
        markSync(device.name, report, String(line.dropFirst(device.name.count + 2)))
        if device.crashSwitch.isDown {
            noteCrash(device, why: "crashed during the sync")
            return
        }
        guard report.ran, let before, let after = try? engine.state() else { return }
        let saves = tallyAfter.acceptedSaves - tallyBefore.acceptedSaves
        let deletes = tallyAfter.acceptedDeletes - tallyBefore.acceptedDeletes
        let fetched = tallyAfter.fetchedModifications - tallyBefore.fetchedModifications
        check(
            .countersAgree, report.sentSaves == saves && after.sentSaves - before.sentSaves == saves,
            "\(device.name): the engine reported \(report.sentSaves) saves (counter +\(after.sentSaves - before.sentSaves)); the container accepted \(saves)"
        )
        check(
            .countersAgree, report.sentDeletes == deletes && after.sentDeletes - before.sentDeletes == deletes,
            "\(device.name): the engine reported \(report.sentDeletes) deletes (counter +\(after.sentDeletes - before.sentDeletes)); the container accepted \(deletes)"
        )
        check(
            .countersAgree,
            report.fetchedModifications == fetched
                && after.fetchedModifications - before.fetchedModifications == fetched,
            "\(device.name): the engine reported \(report.fetchedModifications) fetched records; the container returned \(fetched)"
        )
        let sentEvents = report.events.reduce(0) { total, event in
            if case .sent(let saves, let deletes) = event { return total + saves + deletes }
            return total
        }
        check(
            .countersAgree, sentEvents == report.sentSaves + report.sentDeletes,
            "\(device.name): sent events add up to \(sentEvents), the report says \(report.sentSaves + report.sentDeletes)"
        )
        if case .paused(let reason)? = report.outcome {
            let errors = Set(tallyAfter.errors.filter { $0.value > (tallyBefore.errors[$0.key] ?? 0) }.keys)
            let injected: PauseReason? =

                errors.contains(.quotaExceeded)
                ? .quotaExceeded
                : errors.contains(.userDeletedZone)
                    ? .userDeletedZone
                    : errors.contains(.accountTemporarilyUnavailable) ? .accountTemporarilyUnavailable : nil
            if let injected, errors.count == 1 {
                check(
                    .honestStatus, reason == injected,
                    "\(device.name): the cycle met \(injected) but paused with \(reason)")
            }
        }
    }

    /// Adds what the device's current container saw since last time to its lifetime error tally.
    func accountTally(_ device: Device) {
        guard let tally = device.observed.tally else { return }
        for (code, count) in tally.errors where count > (device.seen.errors[code] ?? 0) {
            device.errorsSeen[code, default: 0] += count - (device.seen.errors[code] ?? 0)
        }
        device.seen = tally
    }
}

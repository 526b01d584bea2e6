import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncTesting
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The simulator's launch steps: cold starts, relaunches, reinstalls, upgrades and crashes of a device's app.
extension Simulation {
    // MARK: Launching

    /// Cold-starts the app on a device. Some launches arm a crash for a later point of a sync.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - why: Why, for the trace.
    ///   - crashAt: A crash at the first matching call of this instance, chosen by a step that needs it (then no
    ///     other crash is drawn); `nil` draws them from the seed.
    func launch(_ device: Device, why: String, crashAt forced: CrashingContainer.Moment? = nil) {
        endMirroredProcess(device)
        device.crashSwitch = CrashSwitch()
        let crashSwitch = device.crashSwitch
        let box = device.observed
        box.set(nil)
        // Within the first few matching calls: an instance lives for a few cycles, so a crash armed past its tenth
        // modify request or fetch seldom went off (crashes after a fetch or a modify met 3% and 6% of seeds).
        let crashPlan: (CrashingContainer.Moment, Int)? =
            if let forced { (forced, 0) } else {
                !healing && random.chance(0.15)
                    ? (CrashingContainer.Moment.allCases[Int(random.next() % 3)], Int(random.next() % 4)) : nil
            }
        // One launch in eight arms a crash inside a later local write (a store transaction killed before its commit).
        let commitCrash: Int? = forced == nil && !healing && random.chance(0.125) ? Int(random.next() % 24) : nil
        if let commitCrash { crashSwitch.arm(afterCommits: commitCrash) }
        device.crashMoment = crashPlan?.0
        device.instance += 1
        let instance = device.instance
        let planted = options.hooks.wrapContainer
        let name = device.name
        let episodes = self.episodes
        let scheduler = self.scheduler!
        do {
            let session = try world.device(name).session
            let app = try world.launch(name, crashSwitch: crashSwitch) { base in
                var container: any PrivateContainer = EpisodeContainer(
                    base: planted?(base, name) ?? base, episodes: episodes, device: name, session: session,
                    scheduler: scheduler)
                if let (moment, after) = crashPlan {
                    container = CrashingContainer(base: container, crashSwitch: crashSwitch, at: moment, after: after)
                }
                let observed = ObservedContainer(base: container)
                box.set(observed)
                return InterleavingContainer(
                    base: observed, scheduler: scheduler, device: name, instance: instance, crashSwitch: crashSwitch)
            }
            device.app = app
            device.seen = ObservedContainer.Tally()
            trace(
                "\(name): \(why) → \(describe(app))"
                    + (crashPlan.map { ", will crash \($0.0.rawValue) #\($0.1)" } ?? "")
                    + (commitCrash.map { ", will crash before local commit #\($0)" } ?? ""))
            mark(.launch, name, "\(why) → \(describe(app))")
        } catch {
            device.app = nil
            if crashSwitch.isDown {
                // The launch itself was killed inside a local write: the user opens the app again.
                result.crashes += 1
                trace("\(name): crashed inside a local write during the launch")
                mark(.crash, name, "crashed inside a local write during the launch")
                return launch(device, why: "relaunch after the crash")
            }
            failToRun("\(name) could not launch: \(error)")
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

    func relaunch(_ device: Device, why: String, crashingAt forced: CrashingContainer.Moment? = nil) {
        device.app = nil
        launch(device, why: why, crashAt: forced)
    }

    func reinstall(_ device: Device) {
        // The reinstall erases the device's evidence: what its fetches claimed is checked first.
        checkFetchedHeld(device)
        let sync: Bool? = random.chance(0.7) ? true : (random.chance(0.5) ? false : nil)
        endMirroredProcess(device)
        device.app = nil
        do {
            try world.device(device.name).reinstall(syncPreference: sync)
        } catch {
            return failToRun("\(device.name) could not be reinstalled: \(error)")
        }
        // The user deleted the app: what it held is no longer owed to this device.
        device.expected.removeAll()
        device.deletedHere.removeAll()
        device.archivedNames = nil
        device.generation += 1
        device.heldBackAdds.removeAll()
        device.heldBackEdits.removeAll()
        device.lastAccepted.removeAll()
        device.learnedDeletion.removeAll()
        device.userEndedPause = nil
        device.newStore(resumingASync: false)
        episodes.resetRefusals(device: device.name)
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
                    withCloudKitFor: entitlement ? world.containerIdentifier : nil,
                    syncEngine: handle.profile.build.syncEngine))
        } catch {
            return failToRun("\(device.name) could not be upgraded: \(error)")
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
        if let app = device.app {
            options.hooks.afterCrash?(app)
            checkNothingStranded(device, app: app)
        }
    }

    /// Invariant 3 after a crash: every record of the user-created store that no server confirmed is queued to be
    /// sent. A record committed without its pending change (a crash between two transactions) would never leave the
    /// device, and the next edit of it would hide the loss from the end state.
    func checkNothingStranded(_ device: Device, app: LaunchedApp) {
        guard let unqueued = try? app.stores.userCreated.unqueuedUnconfirmedNames() else { return }
        let stranded = unqueued.filter { !holdsAsRefused(device, try? app.stores.userCreated.record(named: $0)) }
        check(
            .noAcknowledgedWriteLost, stranded.isEmpty,
            "\(device.name): after the crash, \(stranded.count) record(s) no server confirmed have no pending change and will never be sent (\(stranded.prefix(3).joined(separator: ", ")))"
        )
    }
}

import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SweepRun {
    // MARK: Devices and launches

    func addDevice(_ index: Int, account: String?) {
        let session = AccountSession(account: account.flatMap { try? AccountID($0) })
        let automatic = draw { $0.chance(0.5) }
        let container = makeContainer(device: index, generation: 0, session: session)
        let crashPoint = makeCrashPoint(device: index, generation: 0)
        state.withLock {
            var device = Device(
                name: "device-\(index)", session: session, automatic: automatic, container: container,
                crashPoint: crashPoint)
            if let account { device.accountsSignedInto.insert(account) }
            $0.devices.append(device)
        }
        note("made, signed into \(account ?? "nothing"), automatic sync \(automatic ? "on" : "off")", device: index)
    }

    func makeContainer(device: Int, generation: Int, session: AccountSession) -> SweepContainer {
        let faulty = FaultInjectingContainerFactory.make(
            base: cloud.baseContainer(session: session), faults: faults, session: session, device: "device-\(device)")
        return SweepContainer(base: faulty, device: device, generation: generation, hooks: self)
    }

    /// The crash point of a launch: its armed crash trips only while the launch is the device's current one, and
    /// not inside a launch, an account reaction or the heal (``SweepCrashPoint``).
    func makeCrashPoint(device: Int, generation: Int) -> SweepCrashPoint {
        SweepCrashPoint { [weak self] in
            guard let self else { return false }
            return state.withLock { state in
                state.devices.indices.contains(device) && state.devices[device].generation == generation
                    && state.quiet == 0 && !state.launching
            }
        }
    }

    /// Crashes a device whose app died inside one of its own writes (``SweepCrashPoint``), if it did.
    ///
    /// - Parameter index: The device.
    /// - Returns: Whether it crashed.
    @discardableResult
    func crashIfDiedWriting(_ index: Int) -> Bool {
        let tripped = state.withLock { state in
            let tripped = state.devices[index].crashPoint.hasTripped
            if tripped { state.report.crashesInsideWrites += 1 }
            return tripped
        }
        if tripped { crash(index, "inside a write of its own (the write and every later one lost)") }
        return tripped
    }

    /// Crashes every device whose app died inside one of its own writes during the step.
    func crashWhereDiedWriting() {
        for index in 0..<state.withLock({ $0.devices.count }) { crashIfDiedWriting(index) }
    }

    func launchFolder(_ device: Int, generation: Int) -> URL {
        folder.appending(path: "device-\(device)/launch-\(generation)")
    }

    /// The account a device is signed into.
    func account(of device: Int) -> String? {
        state.withLock { $0.devices[device].session.account?.rawValue }
    }

    /// The device's app, launching it if it is not running: from its folder, then the restore check, then the fetch
    /// an app makes at launch (which also notices an account change made while it was not running).
    func app(_ index: Int) async -> App? {
        let device = state.withLock { $0.devices[index] }
        if let running = device.app { return running }
        let launchFolder = launchFolder(index, generation: device.generation)
        let sweepDevice = SweepDevice(
            name: device.name, folder: launchFolder, database: PSDatabase(container: device.container),
            scheduler: cloud.scheduler, automaticallySync: device.automatic, clock: cloud.clock,
            crashPoint: device.crashPoint)
        let app: App
        // No crash inside the app's writes while it launches (``SweepCrashPoint``).
        state.withLock { $0.launching = true }
        do {
            try FileManager.default.createDirectory(at: launchFolder, withIntermediateDirectories: true)
            app = try await sweep.makeApp(sweepDevice)
        } catch {
            state.withLock { $0.launching = false }
            fail(.appFailed, "\(device.name) could not launch: \(error)")
            return nil
        }
        state.withLock { $0.devices[index].app = app }
        let engine = await app.syncEngine
        state.withLock { $0.launching = false }
        register(engine, device: index, generation: device.generation)
        if let due = device.restoreDue {
            let missing = Set(due).subtracting(engine.restoredPendingRecordZoneChanges)
            if !missing.isEmpty {
                let some = missing.map(\.description).sorted().prefix(3).joined(separator: ", ")
                fail(
                    .stateRestored,
                    "\(device.name) relaunched with an engine whose state lacks \(missing.count) of the \(due.count) "
                        + "pending change(s) of the last state update its delegate handled before the crash (\(some))")
            }
            state.withLock { $0.devices[index].restoreDue = nil }
        }
        note("launched (launch \(device.generation))", device: index)
        await react(app)
        return app
    }

    /// The engine the device's app syncs with now, launching the app if needed.
    func engine(_ index: Int) async -> PSSyncEngine? {
        guard let app = await app(index) else { return nil }
        let engine = await app.syncEngine
        let generation = state.withLock { $0.devices[index].generation }
        register(engine, device: index, generation: generation)
        return engine
    }

    func register(_ engine: PSSyncEngine, device: Int, generation: Int) {
        state.withLock { state in
            let key = ObjectIdentifier(engine)
            if state.engines[key]?.engine !== engine {
                state.engines[key] = EngineRecord(engine: engine, device: device, generation: generation)
            }
        }
    }

    /// Runs an operation with the faults, crash points and nesting held, as an app's launch and its reaction to an
    /// account change are taken here: so that every device notices what happened to its account, unless it is cut
    /// off the network (an outage is not held: ``SweepFaults``). Its error, if any, is the app's to handle.
    /// - Returns: What the operation threw, if anything.
    @discardableResult
    func quietly(_ operation: () async throws -> Void) async -> (any Error)? {
        faults.hold()
        state.withLock { $0.quiet += 1 }
        defer {
            faults.release()
            state.withLock { $0.quiet -= 1 }
        }
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }

    /// Crashes a device now: its launch ends (its handle refuses every request, its engines' events go unwatched),
    /// its folder is kept as it is this instant, and the next use launches it again from a copy.
    func crash(_ index: Int, _ why: String) {
        let (container, generation, due, running) = state.withLock { state in
            let device = state.devices[index]
            return (device.container, device.generation, device.lastHandledPending, device.app)
        }
        container.kill()
        let from = launchFolder(index, generation: generation)
        let to = launchFolder(index, generation: generation + 1)
        if FileManager.default.fileExists(atPath: from.path) {
            do {
                // The app that ran copies its own files (its databases through their library); with none running,
                // nothing has them open.
                if let running {
                    try running.preserve(from, into: to)
                } else {
                    try FileManager.default.copyItem(at: from, to: to)
                }
            } catch {
                fail(.appFailed, "device-\(index)'s files could not be kept at its crash: \(error)")
            }
        }
        let session = state.withLock { $0.devices[index].session }
        let next = makeContainer(device: index, generation: generation + 1, session: session)
        let crashPoint = makeCrashPoint(device: index, generation: generation + 1)
        state.withLock { state in
            state.report.writesRefused += state.devices[index].crashPoint.writesRefused
            state.devices[index].crashPoint = crashPoint
            state.devices[index].generation += 1
            state.devices[index].app = nil
            state.devices[index].container = next
            state.devices[index].crashAtRequest = nil
            state.devices[index].crashAtEvent = nil
            state.devices[index].restoreDue = due
            state.devices[index].lastHandledPending = nil
            state.devices[index].refusedWhenOwed = 0
            state.devices[index].refusedWhenFetchBegan = nil
            state.devices[index].refusedAtLastCleanFetch = [:]
            state.devices[index].currentEngine = nil
            state.engines = state.engines.filter { $0.value.device != index }
            state.report.crashes += 1
        }
        note("CRASH \(why)", device: index)
    }
}

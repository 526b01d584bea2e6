import DeviceStore
import FileSystem
import FoundationEssentials
import PrivateCloud
import PrivateSync
import PrivateSyncTesting
import SimulatedWorld
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One seeded run: a world of 1 to 4 devices on 1 or 2 accounts, a sequence of steps drawn from the seed (user
/// writes, syncs, launches, crashes, account changes, the switch, container faults), then a heal phase, with the
/// invariants checked along the way and at the end.
///
/// It runs the real engine, the real stores (SQLite files on a scratch disk) and the real container semantics; the
/// seed fixes every choice (a ``SplitMix64``, a ``ManualClock``, seeded record names, seeded faults), so a run
/// replays byte for byte. Nothing in the trace depends on the wall clock or on where the files live.
public final class Simulation {
    /// A device of the run, and what the simulator knows about it.
    final class Device {
        let name: String
        var app: LaunchedApp?
        var crashSwitch = CrashSwitch()
        /// The observer around the container of the current app instance (set when the app opens its container).
        let observed = ObservedBox()
        /// The container tally already accounted for, per app instance.
        var seen = ObservedContainer.Tally()
        /// Errors the device's containers threw, over every app instance.
        var errorsSeen: [CloudError.Code: Int] = [:]
        /// Records written on this device (since its last reinstall) that it must still hold, unless deleted.
        var expected = Set<String>()
        /// The names of the records in the device's archive stores, once read; `nil` after the archives changed.
        var archivedNames: Set<String>?

        init(name: String) {
            self.name = name
        }
    }

    /// Holds the current app instance's observed container; shared with the container-wrapping closure.
    final class ObservedBox: Sendable {
        private let current = Mutex<ObservedContainer?>(nil)

        func set(_ container: ObservedContainer?) { current.withLock { $0 = container } }
        var tally: ObservedContainer.Tally? { current.withLock { $0?.tally } }
    }

    /// A record the user wrote.
    struct Written {
        let type: String
        let partition: Partition
        let account: AccountID?
    }

    let options: SimulationOptions
    var random: SplitMix64
    let clock = ManualClock()
    let faults: CountingFaults
    let world: World
    let directory: String
    var devices: [Device] = []
    let accounts: [AccountID]
    var written: [String: Written] = [:]
    var deleted = Set<String>()
    var result: SimulationResult
    var step = 0
    let start: Date
    /// Whether the run is in its heal phase (no new crashes are armed).
    var healing = false

    /// Runs one seeded simulation.
    ///
    /// - Parameter options: The seed and the run's shape.
    /// - Returns: What happened, and the first invariant broken, if any.
    public static func run(_ options: SimulationOptions) async -> SimulationResult {
        let simulation: Simulation
        do {
            simulation = try Simulation(options)
        } catch {
            var result = SimulationResult(seed: options.seed, devices: 0)
            result.failure = InvariantFailure(
                invariant: .noAcknowledgedWriteLost, message: "the world could not be set up: \(error)", step: 0)
            return result
        }
        defer { simulation.tearDown() }
        await simulation.execute()
        return simulation.result
    }

    private init(_ options: SimulationOptions) throws {
        self.options = options
        var random = SplitMix64(seed: options.seed)
        // Draw the run's shape first, so that it depends on the seed alone.
        let deviceCount = options.devices ?? (1 + Int(random.next() % 4))
        let accountCount = 1 + Int(random.next() % 2)
        let storminess = [0.25, 0.5, 1, 1, 2, 4][Int(random.next() % 6)]
        self.accounts = ["alice", "bob"].prefix(accountCount).map { try! AccountID($0) }
        self.faults = CountingFaults(seed: random.next(), storminess: storminess)
        let names = SeededRecordNames(seed: random.next())
        self.random = random
        self.result = SimulationResult(seed: options.seed, devices: deviceCount)
        self.start = clock.now()
        let scratch = FileSystem.isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        do {
            directory = try ScratchDirectory.create(in: scratch)
        } catch {
            throw WorldError(.fileSystem, "cannot create a scratch folder in \(scratch): \(error)")
        }
        world = try World.create(
            at: directory + "/world",
            options: World.Options(
                backend: options.backend, faults: faults, clock: clock, names: names, durability: .survivesProcessCrash)
        )
        trace(
            "world: \(deviceCount) device(s), accounts \(accounts.map(\.rawValue).joined(separator: ", ")), "
                + "fault storminess \(storminess), backend \(options.backend.rawValue)")
        mark(.setup, nil, "\(deviceCount) device(s), accounts \(accounts.map(\.rawValue).joined(separator: ", "))")
        for index in 0..<deviceCount {
            let name = ["phone", "tablet", "laptop", "desk"][index]
            let account = random.chance(0.9) ? accounts[Int(random.next() % UInt64(accounts.count))] : nil
            let sync: Bool? = random.chance(0.8) ? true : (random.chance(0.5) ? false : nil)
            let entitlement = random.chance(0.9)
            _ = try world.addDevice(name, account: account, syncPreference: sync, entitlement: entitlement)
            devices.append(Device(name: name))
            trace(
                "\(name): installed, account \(account?.rawValue ?? "none"), sync \(sync.map { $0 ? "on" : "off" } ?? "unset")"
                    + (entitlement ? "" : ", WITHOUT the entitlement"))
            mark(.setup, name, "installed, account \(account?.rawValue ?? "none")")
        }
    }

    private func tearDown() {
        devices.removeAll()
        try? FileSystem.removeItem(directory)
    }

    // MARK: The run

    private func execute() async {
        for device in devices { launch(device, why: "first launch") }
        while step < options.steps, result.failure == nil {
            step += 1
            clock.advance(by: Double(random.next() % 865))
            await takeStep()
            if result.failure == nil { checkStep() }
        }
        if result.failure == nil { await heal() }
        result.steps = step
        result.simulatedSeconds = clock.now().timeIntervalSince(start)
        result.faults = faults.byKind
    }

    /// One step, its kind drawn from the seed.
    private func takeStep() async {
        let device = devices[Int(random.next() % UInt64(devices.count))]
        let roll = random.next() % 1000
        switch roll {
        case 0..<350: await userWrite(device)
        case 350..<550: await syncDue()
        case 550..<650: await sync(device, force: false, why: "a push notification")
        case 650..<700: await sync(device, force: true, why: "pull to refresh")
        case 700..<740: flipSwitch(device)
        case 740..<790: relaunch(device, why: "relaunch")
        case 790..<800: reinstall(device)
        case 800..<810: upgrade(device)
        case 810..<850: crash(device)
        case 850..<900: changeAccount(device)
        case 900..<960: await resolvePause(device)
        default: await syncDue()
        }
    }

    // MARK: Tracing

    /// Adds a line to the trace: the step, the simulated time, and what happened. No wall-clock figure.
    func trace(_ line: String) {
        let elapsed = Int(clock.now().timeIntervalSince(start))
        let text = "\(pad(step, 4)) +\(pad(elapsed, 6))s \(line)"
        result.traceDigest = StableHash.fnv1a64(text + "\n", seed: result.traceDigest)
        result.trace.append(text)
        if !options.keepFullTrace && result.trace.count > 60 { result.trace.removeFirst(result.trace.count - 40) }
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Records an invariant broken; the run stops at the end of the step.
    func fail(_ invariant: Invariant, _ message: String) {
        guard result.failure == nil else { return }
        result.failure = InvariantFailure(invariant: invariant, message: message, step: step)
        trace("INVARIANT \(invariant) BROKEN: \(message)")
        mark(.failure, nil, "invariant \(invariant) broken: \(message)")
    }

    /// Counts one invariant check; fails it when `holds` is false.
    func check(_ invariant: Invariant, _ holds: Bool, _ message: @autoclosure () -> String) {
        result.invariantChecks += 1
        if !holds { fail(invariant, message()) }
    }
}

import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncTesting
import SimulatedWorld
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
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
        /// User-created records the user deleted on this device, whose names it may create again.
        var deletedHere = Set<String>()
        /// The last check of invariant 3's first half that passed on this device: the sets it read, and how many
        /// names it checked.
        var lastHeldCheck: (sets: HeldCheck, checked: Int)?
        /// The names of the records in the device's archive stores, once read; `nil` after the archives changed.
        var archivedNames: [String: Set<String>]?
        /// The device's own clock.
        let clock: DeviceClock
        /// The current app instance's launch number (it changes at every launch and reconfiguration).
        var instance = 0
        /// How many times the app was reinstalled (writes made before a reinstall are no longer owed).
        var generation = 0
        /// The observed container of the current app instance.
        var observedContainer: ObservedContainer? { observed.container }
        /// Records added while the switch was off or no account was signed in, since the device last became able
        /// to sync: none of them may reach a container until then.
        var heldBackAdds = Set<String>()
        /// Field edits made while the switch was off or no account was signed in: (record, field, version).
        var heldBackEdits: [HeldBackEdit] = []
        /// When (in the run's moments) the device last learned that an account's app data was deleted, by account.
        var learnedDeletion: [String: Int] = [:]
        /// When the user last turned sync on on this device (the only consent to re-upload).
        var consentAt: Int?
        /// A pause only the user can end (a deleted zone, a full iCloud) that the user ended by turning sync on, until
        /// a cycle records an outcome: meanwhile the status must not show it (the reference model reads the engine's
        /// records, so this is the check that does not trust them).
        var userEndedPause: PauseReason?
        /// What the device last had accepted by the server, by account and record: (fields as sent).
        var lastAccepted: [String: [String: [String: FieldValue]]] = [:]
        /// The account the device last started afresh from: none of its records may be in the active store again,
        /// except those written on this device since.
        var freshFrom: UserRecordID?
        /// Records added on this device since it last started afresh.
        var addedSinceFresh = Set<String>()
        /// Errors the device's calls failed with as a whole (not items' errors), by code, over every app instance.
        var thrown: [CloudError.Code: Int] = [:]
        /// Change tags of the device's own saves the server accepted (and told it so), by record; forgotten when the
        /// device may forget the server's versions (a `sync on` that consents to re-upload).
        var ownTags: [String: Set<String>] = [:]
        /// Change tags of the device's own saves accepted during its current cycle: they join ``ownTags`` only if the
        /// cycle ends without a crash or a stop (else the app may never have recorded them).
        var ownThisCycle: [String: Set<String>] = [:]
        /// Change tags of server versions the device received during its current cycle, by record.
        var receivedThisCycle: [String: Set<String>] = [:]
        /// Whether a cycle of this device is in flight (interleaved actions never start a second one).
        var cycling = false
        /// How far the current store has got towards its first sync, as the simulator saw its own cycles go (not as
        /// the engine recorded it): what ``checkFirstSync(_:status:)`` holds the status to.
        var firstSync = FirstSyncSeen.notStarted
        /// Advanced at every reinstall and start afresh: a cycle that began before one says nothing of the new store.
        var storeEra = 0
        /// Where the current app instance's container crashes, if its launch armed a crash there.
        var crashMoment: CrashingContainer.Moment?
        /// Records whose delete this device sent, accepted by the server, and has not fetched back since.
        var unechoedDeletes = Set<String>()
        /// A crash the cycle in flight armed at one of its commits: from the cycle's start, or after an answer.
        var cycleCrash: SimulationPath?
        /// The user-created records the bound account's container held when this device's last completed fetch
        /// ended, in the store era it was made in: what the device's change token says it has (``checkFetchedHeld``).
        var fetchedThrough: (era: Int, names: Set<String>)?
        /// The same, noted at the last page of the cycle in flight, kept only if the cycle succeeds.
        var fetchedThisCycle: (era: Int, names: Set<String>)?
        /// On a build of CKSyncEngine's delegate, the mirror the cycle in flight runs (it holds the mirror's folder
        /// locked): the user's actions meanwhile go through it, as an app's own actions go through its one mirror.
        var mirrored: MirroredApp?
        /// On a build of CKSyncEngine's delegate, records whose save the server refused as its word on the record
        /// (``Simulation/noteRefused(device:names:)``), with the field versions the device held then: the mirror
        /// keeps such a record on the device and never sends it again until it changes.
        var refusedForGood: [String: FieldVersions] = [:]
        /// Whether a page of the zone's changes reached the cycle in flight, as the container answered it.
        var pageFetchedThisCycle = false

        init(name: String, clock: DeviceClock) {
            self.name = name
            self.clock = clock
        }
    }

    /// An edit made while the device could not sync.
    struct HeldBackEdit {
        let name: String
        let field: String
        let version: FieldVersion
    }

    /// One acknowledged write of one field: what the merge oracle judges the healed value against.
    struct FieldWrite {
        let version: FieldVersion
        let value: FieldValue?
        /// The version the device's record had for the field just before (the write supersedes it).
        let predecessor: FieldVersion?
        let device: String
        let generation: Int
    }

    /// A deletion of an account's app data by the user, not yet undone with consent.
    struct ZoneDeletion {
        let moment: Int
        let names: Set<String>
    }

    /// Holds the current app instance's observed container; shared with the container-wrapping closure.
    final class ObservedBox: Sendable {
        private let current = Mutex<ObservedContainer?>(nil)

        func set(_ container: ObservedContainer?) { current.withLock { $0 = container } }
        var tally: ObservedContainer.Tally? { current.withLock { $0?.tally } }
        var container: ObservedContainer? { current.withLock { $0 } }
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
    /// Whether a targeted draw's own steps run now, with nothing scheduled in between (``holdingInterleavings(_:)``).
    var calm = false
    /// The run's scheduler: what a container call of any device asks before it goes out.
    var scheduler: Scheduler?
    /// Faults that last across many calls (low limits, expired tokens).
    let episodes = ServerEpisodes()
    /// The low-limit episode in force, if any: its account, its limit, and the step it ends.
    var lowLimitEpisode: (account: AccountID, limit: Int, until: Int)?
    /// The run's logical time: it moves at every user action, so that "before" and "after" are exact.
    var moment = 0
    /// How deep the interleaving is: 0 in a step, 1 inside an action run between two requests of a cycle.
    var depth = 0
    /// Every acknowledged field write, by record and field.
    var fieldWrites: [String: [String: [FieldWrite]]] = [:]
    /// Records for which an engine said a merge would exceed the record size limit (the server's side was kept).
    var mergesTooLarge = Set<String>()
    /// Records for which some device recorded a conflict (merged, a delete won, or a merge too large).
    var conflicted = Set<String>()
    /// Deletions of each account's app data not yet undone with consent, by account.
    var zoneDeletions: [String: ZoneDeletion] = [:]
    /// Names created on two devices at once (``reuseName(_:)``): two creations the oracle, which knows a record by
    /// its name, cannot tell apart.
    var twinNames = Set<String>()
    /// Two devices whose edits of one record should race: the second device's cycle runs inside the first's, between
    /// its fetch and its send.
    var pendingRace: (caller: String, other: String)?
    /// The last record the user pasted a long text into: later edits pick it often.
    var bigRecord: String?
    /// Accounts whose app data the user deleted at least once (by the simulator's own action).
    var appDataDeleted = Set<String>()
    /// The paths the run reached (``SimulationPath``), for the sweep's coverage table.
    var reached = Set<SimulationPath>()

    /// Runs one seeded simulation.
    ///
    /// - Parameter options: The seed and the run's shape.
    /// - Returns: What happened, and the first invariant broken, if any.
    public static func run(_ options: SimulationOptions) async -> SimulationResult {
        _ = SimulationAllocator.configured
        let simulation: Simulation
        do {
            simulation = try Simulation(options)
        } catch {
            var result = SimulationResult(seed: options.seed, devices: 0)
            result.failure = SimulationFailure(
                .couldNotRun, message: "the world could not be set up: \(error)", step: 0)
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
        let limits = Self.drawLimits(&random)
        self.random = random
        self.result = SimulationResult(seed: options.seed, devices: deviceCount)
        self.start = clock.now()
        #if os(Linux)
            let scratch = FileSystem.isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        #else
            let scratch = "/tmp"
        #endif
        do {
            directory = try ScratchDirectory.create(in: scratch)
        } catch {
            throw WorldError(.fileSystem, "cannot create a scratch folder in \(scratch)", underlying: error)
        }
        // Each device keeps its own time: a skew of up to ten minutes either way, moved now and then.
        var clocks: [String: DeviceClock] = [:]
        for index in 0..<deviceCount {
            let skew = Double(Int(self.random.next() % 1201) - 600)
            let deviceClock = DeviceClock(following: clock)
            deviceClock.setOffset(skew)
            clocks[Self.deviceNames[index]] = deviceClock
        }
        var worldOptions = World.Options(
            backend: options.backend, faults: faults, clock: clock, names: names, durability: .survivesProcessCrash)
        worldOptions.limits = limits
        let deviceClocks = clocks
        let worldClock = clock
        worldOptions.deviceClock = { name -> any WallClock in
            if let clock = deviceClocks[name] { return clock }
            return worldClock
        }
        world = try World.create(at: directory + "/world", options: worldOptions)
        trace(
            "world: \(deviceCount) device(s), accounts \(accounts.map(\.rawValue).joined(separator: ", ")), "
                + "fault storminess \(storminess), backend \(options.backend.rawValue), server pages of "
                + "\(limits.maximumChangesPerPage) changes, requests of \(limits.maximumItemsPerRequest) items and "
                + "\(limits.maximumRequestBytes) bytes"
                + (options.build == .appEngine ? "" : ", every device's build \(options.build.rawValue)"))
        mark(.setup, nil, "\(deviceCount) device(s), accounts \(accounts.map(\.rawValue).joined(separator: ", "))")
        for index in 0..<deviceCount {
            let name = Self.deviceNames[index]
            let account = random.chance(0.9) ? accounts[Int(random.next() % UInt64(accounts.count))] : nil
            let sync: Bool? = random.chance(0.8) ? true : (random.chance(0.5) ? false : nil)
            let entitlement = random.chance(0.9)
            _ = try world.addDevice(
                name, account: account, syncPreference: sync, entitlement: entitlement, syncEngine: options.build)
            devices.append(Device(name: name, clock: clocks[name]!))
            trace(
                "\(name): installed, account \(account?.rawValue ?? "none"), sync \(sync.map { $0 ? "on" : "off" } ?? "unset")"
                    + (entitlement ? "" : ", WITHOUT the entitlement") + ", clock \(Int(clocks[name]!.offset))s")
            mark(.setup, name, "installed, account \(account?.rawValue ?? "none")")
        }
    }

    static let deviceNames = ["phone", "tablet", "laptop", "desk"]

    /// The server's limits of a run: CloudKit's record limits, and in most runs a page of a change fetch, and a
    /// modify request's items and bytes, far below CloudKit's (400 changes, 400 items, 2 MB), so that fetches take
    /// several pages and sends several requests in most seeds. No simulated zone reaches 400 records, so with
    /// CloudKit's limits alone a fetch that stopped after its first page was never reached (issue 24). A request
    /// always fits one record of CloudKit's largest size, as CloudKit's does: a smaller one would refuse a record
    /// the engine may rightly send, for ever.
    ///
    /// - Parameter random: The run's generator.
    /// - Returns: The limits.
    static func drawLimits(_ random: inout SplitMix64) -> CloudLimits {
        var limits = CloudLimits.cloudKit
        limits.maximumChangesPerPage = [3, 5, 8, 13, 21, 400][Int(random.next() % 6)]
        limits.maximumItemsPerRequest = [3, 5, 8, 13, 400][Int(random.next() % 5)]
        let megabyte = 1024 * 1024
        limits.maximumRequestBytes =
            [megabyte + megabyte / 4, megabyte + megabyte / 2, 2 * megabyte][
                Int(random.next() % 3)]
        return limits
    }

    private func tearDown() {
        faults.noteZoneDeletions(nil)
        scheduler?.simulation = nil
        scheduler = nil
        devices.removeAll()
        try? FileSystem.removeItem(directory)
    }

    // MARK: The run

    private func execute() async {
        let scheduler = Scheduler(self)
        self.scheduler = scheduler
        faults.noteZoneDeletions { account in scheduler.zoneDeletedByFault(account: account) }
        for device in devices { launch(device, why: "first launch") }
        while step < options.steps, result.failure == nil {
            step += 1
            clock.advance(by: Double(random.next() % 865))
            moment += 1
            await takeStep()
            if result.failure == nil { await serverWeather() }
            if result.failure == nil { checkStep() }
        }
        if result.failure == nil { await heal() }
        result.steps = step
        result.simulatedSeconds = clock.now().timeIntervalSince(start)
        result.faults = faults.byKind
        result.persistentRefusals = episodes.totalRefusals
        reached.formUnion(faults.paths)
        reached.formUnion(episodes.paths)
        for path in reached { result.pathSeeds[path] = 1 }
    }

    /// One step, its kind drawn from the seed.
    private func takeStep() async {
        let device = devices[Int(random.next() % UInt64(devices.count))]
        let roll = random.next() % 1000
        switch roll {
        case 0..<300: await userWrite(device)
        case 300..<330: await concurrentEdits()
        case 330..<342: await bulkImport(device)
        case 342..<350: await growOnTwoDevices()
        case 350..<540: await syncDue()
        case 540..<550:
            if options.stepTable == .current { await deleteAndMakeAgain(device) } else { await syncDue() }
        case 550..<650: await sync(device, force: false, why: "a push notification")
        case 650..<700: await sync(device, force: true, why: "pull to refresh")
        case 700..<740: await flipSwitch(device)
        case 740..<790: relaunch(device, why: "relaunch")
        case 790..<800: reinstall(device)
        case 800..<810: upgrade(device)
        case 810..<850: crash(device)
        case 850..<890: changeAccount(device)
        case 890..<900: await userDeletesAppData(device)
        case 900..<960: await resolvePause(device)
        case 960..<975: await pasteLongText(device)
        case 975..<990: await reuseName(device)
        case 990..<1000: await accountRoundTrip(device)
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
        result.failure = SimulationFailure(.invariant(invariant), message: message, step: step)
        trace("INVARIANT \(invariant) BROKEN: \(message)")
        mark(.failure, nil, "invariant \(invariant) broken: \(message)")
    }

    /// Records that the run cannot go on (a setup or I/O failure, such as a full disk): its own kind of failure,
    /// never an invariant broken. The run stops at the end of the step.
    func failToRun(_ message: String) {
        guard result.failure == nil else { return }
        result.failure = SimulationFailure(.couldNotRun, message: message, step: step)
        trace("THE RUN CANNOT GO ON: \(message)")
        mark(.failure, nil, "the run could not go on: \(message)")
    }

    /// Counts one invariant check; fails it when `holds` is false.
    func check(_ invariant: Invariant, _ holds: Bool, _ message: @autoclosure () -> String) {
        result.invariantChecks += 1
        if !holds { fail(invariant, message()) }
    }
}

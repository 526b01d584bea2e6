import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One seed of a ``DelegateSweep``: its world, its steps, and what it saw.
///
/// Everything runs on the one task that runs the seed: a step, a step nested in a device's request, the scheduler's
/// runs, and the hooks the containers and the scheduler's event observer call. The lock makes the state safe to
/// reach from those `Sendable` callbacks; it is never held across an `await`.
final class SweepRun<App: SweptApp>: SweepHooks {
    /// One device: its account session, its launches, what its current launch's delegate was last given.
    struct Device {
        let name: String
        let session: AccountSession
        let automatic: Bool
        var generation = 0
        var app: App?
        var container: SweepContainer
        /// Where this launch's app may die inside a write of its own (a run of the swarm arms it).
        var crashPoint: SweepCrashPoint
        /// A crash armed: at the request this many requests from now, before it reaches the server or after.
        var crashAtRequest: (remaining: Int, afterApply: Bool)?
        /// A crash armed: before the delegate handles the event this many events from now.
        var crashAtEvent: Int?
        /// The newest engine of this launch (an app may replace its engine, after a sign-out say): the one whose
        /// state the app persists.
        var currentEngine: ObjectIdentifier?
        /// The pending record changes of the last state update the newest engine's delegate handled.
        var lastHandledPending: [PSSyncEngine.PendingRecordZoneChange]?
        /// How many of the launch's writes had failed as on a full disk when ``lastHandledPending`` was last set.
        var refusedWhenOwed = 0
        /// How many of the launch's writes had failed as on a full disk when the newest engine's fetch under way
        /// began, or `nil` when none is under way.
        var refusedWhenFetchBegan: Int?
        /// How many of the launch's writes had failed as on a full disk at the end of the newest engine's last fetch
        /// that went through with none refused, by the account signed in then: a status waiting for room is true only
        /// after another was refused. (An app may pass over a fetch made for another account than its data's: the
        /// wait for its own data's page stays.)
        var refusedAtLastCleanFetch: [String: Int] = [:]
        /// The account the app last heard of from its engine (`nil` inside: signed out), or `nil` when it has
        /// heard of none yet.
        var appAccount: String??
        /// An account change the app could not react to yet (it came in the middle of this device's own request).
        var reactionDue = false
        /// What the next launch's engine must be made from: the pending changes of the last state the crashed
        /// launch's delegate was given.
        var restoreDue: [PSSyncEngine.PendingRecordZoneChange]?
        /// The causes for a pause this device's requests met (``SweptStatus/Cause``), by the account signed in then:
        /// what its status may name while that account is signed in. (A cause outlives a sign-out and a sign-in of the
        /// same account: its storage is still full, and the app may not have heard it left.)
        var causesHeard: [String: Set<SweptStatus.Cause>] = [:]
        /// Every account the device has been signed into: once there are two, the data on it may be another
        /// account's than the one signed in (``SweptStatus/Cause/accountChanged``).
        var accountsSignedInto: Set<String> = []
    }

    /// One engine the run met, for the pairing and misuse checks (held weakly: an engine a crash or the app let go
    /// of must be free to go, or the scheduler would keep running it).
    struct EngineRecord {
        weak var engine: PSSyncEngine?
        let device: Int
        let generation: Int
        var open: [String: Int] = [:]
    }

    /// A line of the timeline, formatted only when a seed fails.
    enum TimelineEntry {
        case line(step: Int, time: Int, device: Int?, String)
        case event(step: Int, time: Int, device: Int, PSSyncEngine.Event)
    }

    struct State {
        var random: SweepRandom
        /// Whether a crash inside a write is a full disk instead: a generator of its own, so that the run's other
        /// draws are made as they would be (``DelegateSweep/Configuration/fullDisks``).
        var diskRandom: SweepRandom
        /// Which devices are first opened offline, in a run that has outages: a generator of its own, for the same
        /// reason.
        var networkRandom: SweepRandom
        /// The outages under way, by the devices they cut off (more than one: a household's) and when each ends
        /// (``SweepRun/reconnectWhereDue()``).
        var outages: [(devices: [Int], end: Date)] = []
        /// The devices of a household whose network just came back that still have to send: each one's send runs
        /// inside the first device's request, or after it (``SweepRun/beforeRequest(device:generation:)``).
        var reconnecting: (first: Int, others: [Int])?
        var devices: [Device] = []
        var history = SweepHistory()
        var engines: [ObjectIdentifier: EngineRecord] = [:]
        var timeline: [TimelineEntry] = []
        var failure: DelegateSweepFailure?
        var step = 0
        /// Inside another device's request: no further nesting.
        var nested = false
        /// Inside a launch, an account reaction or the heal: no crash, no nesting.
        var quiet = 0
        /// Inside the making of an app: no crash inside its writes (what else a launch draws is as it always was).
        var launching = false
        var report = DelegateSweepReport()
        /// Every item key written so far, in order (what a refusal for good picks from).
        var keys: [String] = []
        /// The accounts whose zones were deleted so far, by the user in Settings (`purged`) or by an app (`deleted`):
        /// a status may name the deletion from then on (an app that cannot tell the two apart pauses for both, as
        /// for a zone it finds gone without a report).
        var purgedAccounts: Set<String> = []
        /// The accounts whose zone an encrypted-data reset took
        /// (``SweepRun/foundZoneMissing(for:device:generation:)``).
        var resetAccounts: Set<String> = []
        /// A clock of what the zone rule compares (``SweepRun/creatingZone(for:device:generation:)``): each
        /// deletion, each device's news of its account's zone, each word of the user.
        var zoneClock = 0
        /// Per account, each deletion of its zone, in order: when, and whether the app waits on it for the user's
        /// word (an encrypted-data reset it does not).
        var zoneDeletions: [String: [(at: Int, waited: Bool)]] = [:]
        /// Per device and account, when the device last heard its account's zone was there (a save landed, a fetch
        /// brought records of it, its creation landed).
        var heardZoneThere: [Int: [String: Int]] = [:]
        /// Per device and account, when the user last turned sync on again there after a deletion.
        var userAnswered: [Int: [String: Int]] = [:]
    }

    let sweep: DelegateSweep<App>
    let seed: UInt64
    let folder: URL
    let cloud: SyncEngineTestCloud
    let faults: SweepFaults
    let startDate: Date
    let state: Mutex<State>
    /// What this run draws its steps by (``DelegateSweep/Configuration/stepMix``).
    let weights: SweepStepWeights

    init(sweep: DelegateSweep<App>, seed: UInt64, folder: URL) throws {
        self.sweep = sweep
        self.seed = seed
        self.folder = folder
        var random = SweepRandom(seed: seed)
        let pageLimits = [3, 20, 400]
        let limits = CloudLimits(
            maximumItemsPerRequest: pageLimits[random.int(below: 3)], maximumRequestBytes: 2 * 1024 * 1024,
            maximumRecordBytes: 1024 * 1024, maximumFieldsPerRecordType: 256, maximumZones: 1000,
            maximumChangesPerPage: pageLimits[random.int(below: 3)])
        let storminess = [0.0, 0.5, 1, 2, 4][random.int(below: 5)]
        let stormSeed = random.next()
        let storage: SyncEngineTestCloud.Storage =
            switch sweep.configuration.storage {
            case .memory: .memory
            case .files: .files(at: folder.appending(path: "cloud").path)
            }
        cloud = try SyncEngineTestCloud(storage: storage, limits: limits)
        faults = SweepFaults(seed: stormSeed, storminess: storminess, now: { [clock = cloud.clock] in clock.now() })
        startDate = cloud.clock.now()
        weights = SweepStepWeights.of(sweep.configuration.stepMix, seed: seed, outages: sweep.configuration.outages)
        state = Mutex(
            State(
                random: random, diskRandom: SweepRandom(seed: seed ^ 0x4449_534B_5F46_554C),
                networkRandom: SweepRandom(seed: seed ^ 0x4E45_5457_4F52_4B5F)))
        note(
            "limits: \(limits.maximumItemsPerRequest) items a request, \(limits.maximumChangesPerPage) a page; "
                + "storminess \(storminess)")
        if sweep.configuration.stepMix == .swarm { note("swarm: " + weights.summary) }
    }

    // MARK: The run

    func run() async -> (report: DelegateSweepReport, failure: DelegateSweepFailure?) {
        let configuration = sweep.configuration
        cloud.scheduler.observe { [weak self] engine, activity in self?.note(activity, of: engine) }
        defer { cloud.scheduler.observe(nil) }
        let count = configuration.devices.lowerBound + draw { $0.int(below: configuration.devices.count) }
        for index in 0..<count {
            let account = draw { $0.element(of: configuration.accounts) }
            addDevice(index, account: account)
        }
        cutOffFirstLaunches()
        for step in 0..<configuration.steps {
            state.withLock {
                $0.step = step
                $0.report.steps += 1
            }
            cloud.clock.advance(by: Double(1 + draw { $0.int(below: 600) }))
            await takeStep()
            crashWhereDiedWriting()
            // Before the reactions owed: an account switched in a step nested in a reconnection is reacted to.
            await reconnectWhereDue()
            crashWhereDiedWriting()
            await reactWhereDue()
            await checkStatuses()
            checkMisuses()
            if failed { break }
        }
        if !failed { await heal() }
        if !failed { await checkFinalState() }
        let faultCount = faults.struck.values.reduce(0, +)
        return state.withLock { state in
            state.report.writesRefused += state.devices.reduce(0) { $0 + $1.crashPoint.writesRefused }
            state.report.seeds = 1
            state.report.faults = faultCount
            state.report.simulatedSeconds = cloud.clock.now().timeIntervalSince(startDate)
            if let failure = state.failure { state.report.failures = [failure] }
            return (state.report, state.failure)
        }
    }

    var failed: Bool { state.withLock { $0.failure != nil } }

    /// Draws from the seed's generator.
    func draw<T>(_ body: (inout SweepRandom) -> T) -> T {
        state.withLock { body(&$0.random) }
    }

    /// The simulated seconds since the run began.
    var elapsed: Int { Int(cloud.clock.now().timeIntervalSince(startDate)) }

    func note(_ line: String, device: Int? = nil) {
        let time = elapsed
        let step = state.withLock { state in
            state.timeline.append(.line(step: state.step, time: time, device: device, line))
            return state.step
        }
        sweep.configuration.trace?("step \(step) t=\(time)s \(device.map { "device-\($0)" } ?? "world"): \(line)")
    }

    func fail(_ invariant: DelegateSweepFailure.Invariant, _ message: String) {
        let time = elapsed
        state.withLock { state in
            guard state.failure == nil else { return }
            state.timeline.append(.line(step: state.step, time: time, device: nil, "FAILED \(invariant): \(message)"))
            let names = state.devices.map(\.name)
            let lines = state.timeline.map { entry -> String in
                switch entry {
                case .line(let step, let time, let device, let text):
                    "step \(step) t=\(time)s \(device.map { names[$0] } ?? "world"): \(text)"
                case .event(let step, let time, let device, let event):
                    "step \(step) t=\(time)s \(names[device]): event \(event)"
                }
            }
            state.failure = DelegateSweepFailure(seed: seed, invariant: invariant, message: message, timeline: lines)
        }
    }

    /// Fails the run if any engine reported a misuse.
    func checkMisuses() {
        let found = state.withLock { state -> (String, PSSyncEngineMisuse)? in
            for record in state.engines.values {
                if let misuse = record.engine?.misuses.first { return (state.devices[record.device].name, misuse) }
            }
            return nil
        }
        if let (device, misuse) = found { fail(.noMisuse, "\(device)'s engine reported: \(misuse)") }
    }
}

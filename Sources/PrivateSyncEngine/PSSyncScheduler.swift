import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where engines that sync automatically schedule their work, and the host runs it: PrivateSync's stand-in for the
/// system scheduler that drives CKSyncEngine on a device.
///
/// Nothing runs in the background and nothing sleeps: an engine asks for a run at a time (a send as soon as changes
/// are added, a fetch at launch and after a push, a retry after the wait a failure asked for, a state update
/// shortly after the state changed), and the host runs what is due with ``runDue(maximumRuns:)``, or everything, moving a
/// manual clock from one due time to the next, with ``runUntilIdle(maximumRuns:)``. Runs happen in one order: by
/// due time, then by the order the engines were created, then state update, fetch, send. So a test, or a seeded
/// simulation, that drives engines through one scheduler replays exactly.
public final class PSSyncScheduler: Sendable {
    /// What an engine asked for.
    enum Work: Int, Comparable, Sendable, CaseIterable {
        case stateUpdate
        case fetch
        case send

        static func < (lhs: Work, rhs: Work) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Slot {
        weak var engine: PSSyncEngine?
        var due: [Work: Date] = [:]

        /// Asks for `work` at `date`, unless it is asked for earlier already.
        mutating func schedule(_ work: Work, at date: Date) {
            if let existing = due[work], existing <= date { return }
            due[work] = date
        }
    }

    private struct State {
        var slots: [Slot] = []
        var runs = 0
    }

    /// What an engine of this scheduler does that an observer is told of.
    public enum Activity: Sendable {
        /// The engine was made (an app makes one at launch, and may make another, after a sign-out say).
        case engineCreated
        /// The engine's delegate is about to handle the event.
        case willDeliver(PSSyncEngine.Event)
        /// The engine's delegate handled the event (its `handleEvent` returned).
        case delivered(PSSyncEngine.Event)
    }

    /// The clock due times are read from.
    public let clock: any WallClock
    private let state = Mutex(State())
    /// The observer, in a box: a closure kept in a `Mutex` itself would gain a reabstraction thunk at every read
    /// (see `PSSyncEngine.State.owner`).
    private let observer = Mutex<ActivityObserver?>(nil)

    /// An observer, held by reference.
    private final class ActivityObserver: Sendable {
        let observe: @Sendable (PSSyncEngine, Activity) -> Void

        init(_ observe: @escaping @Sendable (PSSyncEngine, Activity) -> Void) {
            self.observe = observe
        }
    }

    /// Creates a scheduler.
    ///
    /// - Parameter clock: The clock; a `ManualClock` makes every run's time the test's choice.
    public init(clock: any WallClock) {
        self.clock = clock
    }

    /// How many scheduled runs the scheduler made so far.
    public var runCount: Int { state.withLock { $0.runs } }

    /// The earliest time any engine wants to run, or `nil` when none does.
    public var nextDueDate: Date? {
        state.withLock { state in
            state.slots.compactMap { $0.engine == nil ? nil : $0.due.values.min() }.min()
        }
    }

    /// Runs everything due now, one run at a time, until nothing is due (a run may schedule more, due now).
    ///
    /// An engine with a fetch or send under way is passed over, its work left due: a device runs one operation of
    /// an engine at a time, and a run started from inside one (a test's hook in the middle of a request) would wait
    /// for itself.
    ///
    /// - Parameter maximumRuns: The most runs before it stops, so that an engine that keeps asking cannot hold a
    ///   test for ever.
    /// - Returns: How many runs it made.
    @discardableResult
    public func runDue(maximumRuns: Int = 10_000) async -> Int {
        var runs = 0
        while runs < maximumRuns, let (engine, work) = takeDue(before: clock.now()) {
            await engine.runScheduled(work)
            runs += 1
        }
        return runs
    }

    /// Runs everything due, then moves the clock to the next due time and runs that, until no engine wants to run.
    ///
    /// Each retry waits its full time on the clock, which is what makes a run of seconds in real time stand for
    /// hours of a device's life.
    ///
    /// - Parameter maximumRuns: The most runs before it stops.
    /// - Returns: How many runs it made.
    /// - Precondition: The scheduler's clock is a `ManualClock` (the only clock it can move).
    @discardableResult
    public func runUntilIdle(maximumRuns: Int = 10_000) async -> Int {
        guard let manual = clock as? ManualClock else {
            preconditionFailure("PSSyncScheduler.runUntilIdle moves the clock: give the scheduler a ManualClock")
        }
        var runs = 0
        while runs < maximumRuns {
            let made = await runDue(maximumRuns: maximumRuns - runs)
            runs += made
            // Only work of engines under way may be left due now: it waits for them, not for the clock.
            guard let next = nextDueDate, made > 0 || next > clock.now() else { break }
            manual.advance(to: next)
        }
        return runs
    }

    /// Schedules a fetch on every engine this scheduler drives, as a push to every device does when the server
    /// changes: another device or client wrote, a zone was deleted.
    public func schedulePushFetches() {
        let now = clock.now()
        state.withLock { state in
            for index in state.slots.indices where state.slots[index].engine?.automaticallySync == true {
                state.slots[index].schedule(.fetch, at: now)
            }
        }
    }

    /// Makes every automatically syncing engine this scheduler drives look at the account again, as
    /// `CKAccountChanged` does on a device: a fetch, and a send when changes wait (an attempt that met an unusable
    /// account waits for this rather than retrying on a timer).
    public func scheduleAccountChecks() {
        let now = clock.now()
        let engines = state.withLock { state in state.slots.compactMap(\.engine) }
        for engine in engines where engine.automaticallySync {
            schedule(.fetch, for: engine, at: now)
            if engine.hasWorkToSend(in: .all) { schedule(.send, for: engine, at: now) }
        }
    }

    /// Watches the engines of this scheduler: each one made, and every event each delivers, before and after its
    /// delegate handles it. What a sweep checks the engine's contract with (one `did` per `will`, the last state a
    /// delegate was given), and where it can crash a device between two events. PrivateSync's own; nothing in
    /// CloudKit has it.
    ///
    /// - Parameter observer: Called with the engine and what it did, on the engine's task; `nil` stops.
    public func observe(_ observer: (@Sendable (PSSyncEngine, Activity) -> Void)?) {
        let box = observer.map(ActivityObserver.init)
        self.observer.withLock { $0 = box }
    }

    /// Tells the observer, if one watches.
    func note(_ activity: Activity, of engine: PSSyncEngine) {
        observer.withLock { $0 }?.observe(engine, activity)
    }

    // MARK: Engines

    /// Adds an engine; its work runs after that of the engines added before it, at equal times.
    func register(_ engine: PSSyncEngine) {
        state.withLock { state in
            state.slots.removeAll { $0.engine == nil }
            state.slots.append(Slot(engine: engine))
        }
        note(.engineCreated, of: engine)
    }

    /// Asks for `work` for `engine` at `date`, or earlier if it was asked for earlier.
    func schedule(_ work: Work, for engine: PSSyncEngine, at date: Date) {
        state.withLock { state in
            guard let index = state.slots.firstIndex(where: { $0.engine === engine }) else { return }
            state.slots[index].schedule(work, at: date)
        }
    }

    /// Forgets `work` for `engine` (it just ran, or has nothing to do).
    func cancel(_ work: Work, for engine: PSSyncEngine) {
        state.withLock { state in
            guard let index = state.slots.firstIndex(where: { $0.engine === engine }) else { return }
            state.slots[index].due[work] = nil
        }
    }

    /// When `engine` wants `work` next, if it does.
    func dueDate(of work: Work, for engine: PSSyncEngine) -> Date? {
        state.withLock { state in state.slots.first { $0.engine === engine }?.due[work] }
    }

    private func takeDue(before now: Date) -> (PSSyncEngine, Work)? {
        // Read outside the scheduler's lock: an engine takes its own lock, then may schedule.
        let busy = Set(
            state.withLock { $0.slots.compactMap(\.engine) }.filter(\.isInOperation).map(ObjectIdentifier.init))
        return state.withLock { state in
            var best: (slot: Int, work: Work, date: Date)?
            for (index, slot) in state.slots.enumerated() {
                guard let engine = slot.engine, !busy.contains(ObjectIdentifier(engine)) else { continue }
                for (work, date) in slot.due where date <= now {
                    if let current = best, (current.date, current.slot, current.work) <= (date, index, work) {
                        continue
                    }
                    best = (index, work, date)
                }
            }
            guard let best, let engine = state.slots[best.slot].engine else { return nil }
            state.slots[best.slot].due[best.work] = nil
            state.runs += 1
            return (engine, best.work)
        }
    }
}

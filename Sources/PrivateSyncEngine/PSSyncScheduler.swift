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

    /// The clock due times are read from.
    public let clock: any WallClock
    private let state = Mutex(State())

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
            runs += await runDue(maximumRuns: maximumRuns - runs)
            guard let next = nextDueDate else { break }
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

    // MARK: Engines

    /// Adds an engine; its work runs after that of the engines added before it, at equal times.
    func register(_ engine: PSSyncEngine) {
        state.withLock { state in
            state.slots.removeAll { $0.engine == nil }
            state.slots.append(Slot(engine: engine))
        }
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
        state.withLock { state in
            var best: (slot: Int, work: Work, date: Date)?
            for (index, slot) in state.slots.enumerated() where slot.engine != nil {
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

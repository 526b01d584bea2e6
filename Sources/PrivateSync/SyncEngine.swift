public import DeviceStore
public import PrivateCloud
import PrivateSyncFileSystem
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Mirrors the user-created store into the user's private container and back, in the shape of CKSyncEngine.
///
/// The engine is driven, not running: it spawns no tasks and sets no timers. The host calls ``sync(force:)`` (or
/// ``fetchChanges(force:)`` and ``sendChanges(force:)``) and asks ``nextRunDate()`` when it next wants to run.
/// Time comes from the injected clock. All of its state (tokens, the account it is bound to, pending changes, the
/// retry schedule, a pause) lives in the user-created store, written in the same transactions as the records it
/// describes, so a crash at any point loses nothing and duplicates nothing.
///
/// One cycle: check the account (and bind the store to it on first use), make sure the zone exists, read database
/// changes (to learn whether the user deleted the app's iCloud data), fetch zone changes page by page (each page
/// and its token in one transaction), then send pending changes in batches within CloudKit's limits. See
/// `docs/engine.md` for the policies.
public final class SyncEngine: Sendable {
    /// The store mirrored.
    public let store: RecordStore<UserCreated>
    /// The container mirrored into.
    public let container: any PrivateContainer
    /// The custom zone every record lives in.
    public let zoneID: ZoneID
    let clock: any WallClock
    let resolver: any ConflictResolver
    let retryPolicy: RetryPolicy
    let observer: (@Sendable (SyncEvent) -> Void)?
    /// Whether the user still wants sync, read live before every request (another process may turn it off).
    let isSyncWanted: @Sendable () -> Bool
    /// Brings back what this device archived for an account, called with the account a cycle is about to bind a
    /// store that started afresh to (see ``init(store:container:zoneID:clock:resolver:retryPolicy:observer:isSyncWanted:restoreArchives:)``).
    let restoreArchives: (@Sendable (UserRecordID) throws -> Void)?
    /// The most items one cycle sends (``defaultMaximumItemsPerCycle``; less in tests).
    let maximumItemsPerCycle: Int
    private let running = Mutex(false)

    /// The engine's zone name, as NSPersistentCloudKitContainer uses `com.apple.coredata.cloudkit.zone`.
    public static let defaultZoneName = "PrivateSyncZone"

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - store: The user-created store.
    ///   - container: The user's private container.
    ///   - zoneID: The zone to use; `PrivateSyncZone` by default.
    ///   - clock: Where time comes from.
    ///   - resolver: The conflict policy; per-field last writer wins by default.
    ///   - retryPolicy: The backoff after transient failures.
    ///   - observer: Called with every event, synchronously, as it happens.
    ///   - isSyncWanted: Whether the user still wants sync, asked before every container request, so that a cycle
    ///     in flight stops as soon as the switch goes off (the app's setting, which another process may change).
    ///   - restoreArchives: Called in a cycle, with the account the cycle is about to bind a store bound to no one
    ///     (one that started afresh) to, right before it binds it: brings back the records this device archived
    ///     for that account, since no restore runs once the store is bound. Called with the account the cycle
    ///     asked the container for, not the one signed in when the cycle began: the user may switch in between.
    ///     A throw skips the cycle (``CycleSkipReason/archiveNotRestored(_:)``), the store still unbound.
    public convenience init(
        store: RecordStore<UserCreated>, container: any PrivateContainer,
        zoneID: ZoneID = ZoneID(uncheckedName: SyncEngine.defaultZoneName), clock: any WallClock,
        resolver: any ConflictResolver = FieldLevelLastWriterWins(), retryPolicy: RetryPolicy = .standard,
        observer: (@Sendable (SyncEvent) -> Void)? = nil, isSyncWanted: @escaping @Sendable () -> Bool = { true },
        restoreArchives: (@Sendable (UserRecordID) throws -> Void)? = nil
    ) {
        self.init(
            store: store, container: container, zoneID: zoneID, clock: clock, resolver: resolver,
            retryPolicy: retryPolicy, observer: observer, isSyncWanted: isSyncWanted,
            maximumItemsPerCycle: Self.defaultMaximumItemsPerCycle, restoreArchives: restoreArchives)
    }

    /// Creates an engine that sends at most `maximumItemsPerCycle` items a cycle (tests of that limit).
    package init(
        store: RecordStore<UserCreated>, container: any PrivateContainer, zoneID: ZoneID, clock: any WallClock,
        resolver: any ConflictResolver, retryPolicy: RetryPolicy, observer: (@Sendable (SyncEvent) -> Void)?,
        isSyncWanted: @escaping @Sendable () -> Bool, maximumItemsPerCycle: Int,
        restoreArchives: (@Sendable (UserRecordID) throws -> Void)? = nil
    ) {
        self.restoreArchives = restoreArchives
        self.maximumItemsPerCycle = maximumItemsPerCycle
        self.isSyncWanted = isSyncWanted
        self.store = store
        self.container = container
        self.zoneID = zoneID
        self.clock = clock
        self.resolver = resolver
        self.retryPolicy = retryPolicy
        self.observer = observer
    }

    // MARK: Driving

    /// Runs one cycle: fetch, then send.
    ///
    /// - Parameter force: Run even if the retry schedule says not yet, or a full iCloud stopped sync (a user's
    ///   pull to refresh).
    /// - Returns: What moved, and how the attempt ended.
    @discardableResult
    public func sync(force: Bool = false) async -> SyncReport {
        await cycle(force: force, fetch: true, send: true)
    }

    /// Fetches changes only.
    @discardableResult
    public func fetchChanges(force: Bool = false) async -> SyncReport {
        await cycle(force: force, fetch: true, send: false)
    }

    /// Sends pending changes only.
    @discardableResult
    public func sendChanges(force: Bool = false) async -> SyncReport {
        await cycle(force: force, fetch: false, send: true)
    }

    /// Tells the engine that the device's account changed (the app observed `CKAccountChanged`): an attempt that
    /// stopped because the account could not be used recorded "not until the account changes", and this is that
    /// change, so the next run is due again by the usual rule (at once while changes wait). Without it an engine
    /// whose last attempt met a signed-out, restricted or unavailable account never asked to run again once the
    /// account came back, while its status read on (issue 24's liveness invariant, 12 of 100 seeds). A cycle that
    /// then finds the account still unusable records it again, at the cost of one account check.
    ///
    /// - Throws: `StoreError` when the state cannot be read or written.
    public func accountDidChange() throws(StoreError) {
        // Read first: most launches and account changes find nothing to forget, and need no write.
        guard try state().stoppedByAccount else { return }
        try store.syncTransaction { transaction in
            try transaction.updateEngineState { state in state.forgetAccountStop() }
        }
    }

    /// When the engine wants to run next: now when changes wait, the retry time after a failure, or `nil` when
    /// there is nothing to do until something changes (a local write, the user's action, an account change).
    public func nextRunDate() -> Date? {
        try? store.syncSnapshot { state in try Self.nextRun(state, now: self.clock.now()) }
    }

    static func nextRun(_ transaction: SyncTransaction, now: Date) throws -> Date? {
        let state = try transaction.engineState()
        if state.pause != nil { return nil }
        switch state.lastOutcome {
        case .retrying?, .diskFull?, .fileBusy?, .paused(.accountTemporarilyUnavailable)?, .paused(.noAccount)?:
            return state.nextAttempt ?? now
        case .paused?, .accountUnusable?: return nil
        case .succeeded?, nil: break
        }
        return try transaction.sendablePendingCount(for: state.boundUser) > 0 ? now : nil
    }

    /// The engine's state, as the status and the host read it.
    ///
    /// - Returns: The state, as last committed.
    /// - Throws: `StoreError` when the store cannot be read, or `damagedFile` for a value the engine never writes.
    public func state() throws(StoreError) -> EngineState {
        try EngineState.read(from: store)
    }

    /// How many changes wait to be sent to the bound account: changes written under another account wait for that
    /// one and are not counted (with no account bound yet, every change counts).
    ///
    /// - Returns: The number of changes.
    /// - Throws: `StoreError` when the store cannot be read, or `damagedFile` for a value the engine never writes.
    public func pendingChangeCount() throws(StoreError) -> Int {
        try EngineState.readWithPendingCount(from: store).pendingChanges
    }

    // MARK: The cycle

    /// Why a cycle stopped early.
    enum Stop: Error {
        /// Try again later.
        case retry(CloudError)
        /// Sync cannot run; `persistent` pauses last until the user acts.
        case pause(PauseReason, persistent: Bool, message: String)
        /// The device's own account status stops sync. Nothing is recorded: the status reads the account live, so
        /// a pause recorded here would outlive the account coming back.
        case accountUnusable(PauseReason)
        /// The store failed (or the process crashed): record nothing more.
        case store(StoreError)
        /// The user or another process changed what the cycle may do: stop, record nothing, say why.
        case stopped(CycleStopReason)
        /// The cycle cannot go on before something outside the engine is done (an archive brought back): it is
        /// reported as skipped, and nothing is recorded.
        case skipped(CycleSkipReason)
    }

    /// What a cycle started from: the account it is bound to and the store's epoch. Every transaction that applies
    /// the server's data or picks what to send checks both, in the same transaction, so a cycle that outlived a
    /// fresh start applies nothing.
    struct CycleGuard: Sendable {
        let user: UserRecordID
        let epoch: Int64
    }

    /// Thrown inside a store transaction (rolling it back) when the cycle may not go on.
    struct CycleInterrupted: Error {
        let reason: CycleStopReason
    }

    private func cycle(force: Bool, fetch: Bool, send: Bool) async -> SyncReport {
        var report = SyncReport()
        guard
            running.withLock({ busy in
                busy
                    ? false
                    : {
                        busy = true; return true
                    }()
            })
        else {
            report.skippedBecause = .alreadyRunning
            return report
        }
        defer { running.withLock { $0 = false } }
        // One cycle of a device at a time, across processes too (another `sync now`, another instance of the app):
        // two cycles fetching and applying the same pages would each undo the other's bookkeeping. The lock is the
        // store folder's, which no one else locks (and which outlives no instance of the app: a reinstall waits for
        // every lease); it is dropped with the cycle, or by the kernel when the process dies.
        let cycleLock: FileLock?
        do {
            guard let lock = try FileLock.exclusiveIfFree(store.configuration.directory) else {
                report.skippedBecause = .alreadyRunning
                return report
            }
            cycleLock = lock
        } catch {
            cycleLock = nil  // A folder that cannot be locked holds no other cycle either; the store reports it.
        }
        defer { cycleLock?.unlock() }
        // The store's epoch as the cycle found it: the outcome is recorded only in that store, never in one a reset
        // or a start afresh made while the cycle was in flight.
        var epoch: Int64?
        do throws(Stop) {
            let start = try skipReason(force: force)
            if let reason = start.reason {
                report.skippedBecause = reason
                report.nextRun = nextRunDate()
                return report
            }
            epoch = start.epoch
            report.ran = true
            try checkStillWanted()
            let cycle = try await prepare(&report)
            if fetch { try await fetchAll(cycle, &report) }
            if send { try await sendAll(cycle, &report) }
            try record(.succeeded, error: nil, in: epoch, &report)
        } catch {
            handle(error, in: epoch, &report)
        }
        report.nextRun = nextRunDate()
        return report
    }

    /// Why the cycle should not run now, or `nil` to run; and the store's epoch, read in the same snapshot.
    private func skipReason(force: Bool) throws(Stop) -> (reason: CycleSkipReason?, epoch: Int64) {
        do {
            return try store.syncSnapshot { transaction -> (reason: CycleSkipReason?, epoch: Int64) in
                let state = try transaction.engineState()
                return (Self.skipReason(state, force: force, now: self.clock.now()), state.epoch)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Why a cycle should not run now, from the engine's state.
    private static func skipReason(_ state: EngineState, force: Bool, now: Date) -> CycleSkipReason? {
        switch state.pause {
        case .userDeletedZone? where !force && !state.reuploadConsent:
            // A forced sync still reads the database changes: they say whether the zone went with the account's keys
            // (re-uploaded at once) or by the user (paused again, nothing sent).
            return .paused(.userDeletedZone)
        case .quotaExceeded? where !force:
            return .paused(.quotaExceeded)
        case .containerUnusable? where !force:
            return .paused(.containerUnusable)
        default:
            break
        }
        if !force, let next = state.nextAttempt, next > now, state.lastOutcome != .succeeded {
            return .notDue(until: next)
        }
        return nil
    }

    /// Sorts a container error into retry or pause.
    func stop(for error: CloudError) -> Stop {
        // A full disk is transient and says nothing about the container: retried, never a pause that blames it.
        if error.isDiskFull { return .retry(error) }
        if error.isDamagedStorage {
            return .pause(.containerUnusable, persistent: true, message: error.message)
        }
        return switch error.code {
        // The account changed while a request was in flight (it was cancelled): derived live, like any switch.
        case .operationCancelled: .accountUnusable(.accountChanged)
        case .notAuthenticated: .pause(.noAccount, persistent: false, message: error.message)
        case .accountTemporarilyUnavailable:
            .pause(.accountTemporarilyUnavailable, persistent: false, message: error.message)
        case .quotaExceeded: .pause(.quotaExceeded, persistent: true, message: error.message)
        case .userDeletedZone: .pause(.userDeletedZone, persistent: true, message: error.message)
        default: .retry(error)
        }
    }

    /// Records how the cycle ended, and reports it.
    ///
    /// - Parameters:
    ///   - stop: Why the cycle ended.
    ///   - epoch: The store's epoch as the cycle found it, or `nil` when it ended before reading it: an outcome is
    ///     recorded only in that epoch's store.
    ///   - report: The cycle's report.
    private func handle(_ stop: Stop, in epoch: Int64?, _ report: inout SyncReport) {
        switch stop {
        case .skipped(let reason):
            report.ran = false
            report.outcome = nil
            report.skippedBecause = reason
        case .stopped(let reason):
            // Not a failure, and nothing to retry: the user (or another process) decided. Nothing is recorded.
            report.outcome = nil
            report.stoppedBecause = reason
            emit(.stopped(reason), &report)
        case .store(let error) where isDiskFull(error):
            // The store could not be written for want of space: transient. Recorded if it can be (a full disk
            // often still takes a small write), reported either way.
            try? record(.diskFull, error: nil, in: epoch, &report)
            report.outcome = .diskFull
        case .store(let error) where isBusy(error):
            // Another process held the store locked past the wait: transient, the store is healthy. Recorded if the
            // lock is gone by now, reported either way.
            try? record(.fileBusy, error: nil, in: epoch, &report)
            report.outcome = .fileBusy
        case .store(let error):
            // The store cannot be written (or the process is gone): there is nothing honest left to record, but the
            // report says why (a cycle once ended in exit 75 with no reason at all).
            report.outcome = nil
            report.storeFailure = error.description
        case .accountUnusable(let reason):
            // Recorded so that the engine stops asking to run until the account changes; the user's consent to
            // re-upload is spent, as it was given for another account state.
            try? store.syncTransaction { transaction in
                try transaction.updateEngineState { state in
                    guard Self.isSameStore(state, epoch) else { return }
                    state.lastOutcome = .accountUnusable(reason)
                    state.nextAttempt = nil
                    state.reuploadConsentCovers = 0
                }
            }
            report.outcome = .paused(reason)
            emit(.paused(reason), &report)
        case .retry(let error):
            let outcome: EngineOutcome =
                error.isDiskFull ? .diskFull : error.isBusy ? .fileBusy : .retrying(error.code)
            // Reported even when it cannot be recorded (the store's disk full too): the caller still learns why.
            if (try? record(outcome, error: error, in: epoch, &report)) == nil { report.outcome = outcome }
        case .pause(let reason, let persistent, let message):
            try? store.syncTransaction { transaction in
                try transaction.updateEngineState { state in
                    guard Self.isSameStore(state, epoch) else { return }
                    if persistent { state.pause = reason }
                    state.lastError = message
                }
            }
            // A server that says the account is unusable (9, 36) while the device says otherwise is retried on the
            // backoff schedule; a pause the user must end is not.
            let error: CloudError? =
                persistent
                ? nil : CloudError(reason == .noAccount ? .notAuthenticated : .accountTemporarilyUnavailable, message)
            try? record(.paused(reason), error: error, in: epoch, &report)
            emit(.paused(reason), &report)
        }
    }

    /// Records how the attempt ended, and schedules the next one after a failure worth retrying.
    private func record(
        _ outcome: EngineOutcome, error: CloudError?, in epoch: Int64?, _ report: inout SyncReport
    ) throws(Stop) {
        let now = clock.now()
        var scheduled: Date?
        var resumed = false
        do {
            try store.syncTransaction { transaction in
                try transaction.updateEngineState { state in
                    guard Self.isSameStore(state, epoch) else { return }
                    state.lastOutcome = outcome
                    state.lastAttempt = now
                    switch outcome {
                    case .succeeded:
                        state.retryAttempt = 0
                        state.nextAttempt = nil
                        state.lastError = nil
                        if state.pause == .quotaExceeded || state.pause == .containerUnusable {
                            state.pause = nil
                            resumed = true
                        }
                    case .retrying, .diskFull, .fileBusy, .paused(.accountTemporarilyUnavailable), .paused(.noAccount):
                        let attempt = state.retryAttempt + 1
                        let next = now.addingTimeInterval(
                            self.retryPolicy.delay(attempt: attempt, retryAfter: error?.retryAfter))
                        state.retryAttempt = attempt
                        state.nextAttempt = next
                        if let error { state.lastError = error.description }
                        scheduled = next
                    case .paused, .accountUnusable:
                        state.nextAttempt = nil
                    }
                }
            }
        } catch {
            throw .store(error)
        }
        report.outcome = outcome
        if let scheduled, let error { emit(.retryScheduled(code: error.code, at: scheduled), &report) }
        if resumed { emit(.resumed, &report) }
    }

    /// Whether the store is still the one a cycle started on: its outcome belongs there, and nowhere else. A cycle a
    /// start afresh overtook (the user switched account and started afresh between two of its requests) once
    /// recorded "the account changed" in the fresh store, which then never asked to run (seed 225 of 300, found by
    /// invariant 13).
    ///
    /// - Parameters:
    ///   - state: The store's engine state, read in the transaction that would record the outcome.
    ///   - epoch: The epoch the cycle found, or `nil` when it ended before reading it.
    static func isSameStore(_ state: EngineState, _ epoch: Int64?) -> Bool {
        epoch.map { $0 == state.epoch } ?? true
    }

    /// Makes a container call as a request for `user`: if another account is signed in by the time it reaches the
    /// database, the container cancels it (`operationCancelled`) instead of writing or reading the other account.
    ///
    /// - Parameters:
    ///   - user: The user the cycle is bound to.
    ///   - call: The call, returning its outcome.
    /// - Returns: The call's outcome.
    func asRequest<T: Sendable>(
        for user: UserRecordID, _ call: () async -> Result<T, CloudError>
    ) async -> Result<T, CloudError> {
        await AccountSession.$requestedFor.withValue(user) { await call() }
    }

    /// Logs a container call the cycle made, and returns its outcome for the caller to unwrap.
    ///
    /// The call is made by the caller and passed in as a `Result` (not as a closure: a generic async closure with a
    /// typed throw miscompiles through protocol-extension witnesses in Swift 6.3 debug builds, crashing on a null
    /// error slot).
    ///
    /// - Parameters:
    ///   - operation: The call.
    ///   - zone: The zone it concerned.
    ///   - items: For a modify request, its items (their outcomes are filled in by the caller).
    ///   - batchSize: For a modify request, the batch size in use.
    ///   - outcome: What the call returned or threw.
    ///   - report: The report whose request log grows.
    /// - Returns: `outcome`.
    func log<T>(
        _ operation: ContainerRequest.Operation, zone: ZoneID? = nil, items: [ContainerRequest.Item] = [],
        batchSize: Int? = nil, _ outcome: Result<T, CloudError>, _ report: inout SyncReport
    ) -> Result<T, CloudError> {
        var entry = ContainerRequest(operation: operation, zone: zone)
        entry.items = items
        entry.batchSize = batchSize
        if case .failure(let error) = outcome {
            entry.error = error.code
            entry.fault = error.injectedFault
        }
        report.requests.append(entry)
        return outcome
    }

    func emit(_ event: SyncEvent, _ report: inout SyncReport) {
        report.events.append(event)
        observer?(event)
    }

    /// Runs a store transaction, turning its failure into a stop.
    func transaction<T: Sendable>(_ body: (SyncTransaction) throws -> T) throws(Stop) -> T {
        do {
            return try store.syncTransaction(body)
        } catch {
            if let interrupted = error.underlying as? CycleInterrupted { throw .stopped(interrupted.reason) }
            throw .store(error)
        }
    }

    /// Runs a store transaction of the cycle `cycle`, which goes ahead only while the store is still in the epoch
    /// and bound to the account the cycle started with. The engine's state, read once to check that, is `body`'s
    /// to change; the fields it changed are written with the rest of the transaction.
    func transaction<T: Sendable>(
        _ cycle: CycleGuard, _ body: (SyncTransaction, inout EngineState) throws -> T
    ) throws(Stop) -> T {
        try transaction { transaction in
            try transaction.updateEngineState { state in
                if state.epoch != cycle.epoch || state.boundUser != cycle.user {
                    throw CycleInterrupted(reason: .storeStartedAfresh)
                }
                return try body(transaction, &state)
            }
        }
    }

    /// Stops the cycle when the user has turned sync off since it began.
    ///
    /// Called before every container request, after the batch it sends was read: a record written after the switch
    /// went off cannot be in a batch read before it, and a batch read after it is never sent.
    func checkStillWanted() throws(Stop) {
        if !isSyncWanted() { throw .stopped(.syncTurnedOff) }
    }
}

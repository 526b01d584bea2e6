import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An engine that syncs a delegate's data with a private database, in the shape of Apple's `CKSyncEngine`, over
/// PrivateSync's fake container: files or memory, shared by several engines (devices), and processes, at once.
///
/// It follows CKSyncEngine's documented behaviour (`docs/cksyncengine.md` lists each rule and the test that pins
/// it): a fetch reads the database's zone changes, then each changed zone's record changes, page by page; a send
/// sends the pending zone changes, then asks the delegate for batches of record changes until it returns `nil`;
/// every `will…` event is followed by exactly one `did…`; events are delivered one at a time, and
/// ``fetchChanges(_:)`` and ``sendChanges(_:)`` return only after every event they posted was handled; an account
/// change clears the pending changes and posts one `accountChange`; the seven errors CloudKit retries by itself keep
/// their changes pending, and every other failure drops them for the delegate to add again.
///
/// Where CloudKit has a system scheduler, this engine has a ``PSSyncScheduler`` the host drives: with
/// ``Configuration/automaticallySync`` on, it schedules its own sends, fetches and retries there, and they run when
/// the host runs the scheduler. Nothing runs in the background.
public final class PSSyncEngine: Sendable, CustomStringConvertible {
    /// What the engine tracks while it runs (not part of its persisted state).
    struct Runtime {
        /// The task awaiting the delegate right now, if any (a hash of it).
        var deliveringTask: Int?
        /// Whether a fetch, a send or a state update is running.
        var inOperation = false
        /// Advanced by ``cancelOperations()``: an operation that began in an earlier generation stops.
        var cancelGeneration = 0
        /// Transient failures in a row, for the backoff of automatic retries.
        var retryAttempt = 0
        /// What made the configuration unusable, if anything.
        var configurationMisuse: PSSyncEngineMisuse?
        /// Every misuse reported so far.
        var misuses: [PSSyncEngineMisuse] = []
        /// How the last scheduled run failed, if it did.
        var lastScheduledError: (any Error)?
        /// Whether the last fetch ended with nothing failed, set before its `didFetchChanges` is posted.
        var lastFetchSucceeded = false
    }

    /// The database the engine syncs with.
    public let database: PSDatabase
    /// The engine's state: its pending changes and tokens.
    public let state: State
    /// Where the engine schedules automatic syncs and state updates: the configuration's, or one of its own.
    public let scheduler: PSSyncScheduler
    /// Whether the engine syncs on its own through ``scheduler``.
    public let automaticallySync: Bool
    /// The subscription the configuration named, if any.
    public let subscriptionID: PSSubscription.ID?
    weak let delegate: (any PSSyncEngineDelegate)?
    let gate = OperationGate()
    let runtime: Mutex<Runtime>
    /// The real CKSyncEngine the operations go to, when this engine fronts it (the bridge's).
    let forwarded: (any ForwardedEngine)?
    /// The record changes pending in the state the engine was made from: what a sweep compares with the last state
    /// its delegate was given before a crash.
    package let restoredPendingRecordZoneChanges: [PendingRecordZoneChange]

    /// Creates an engine, as `CKSyncEngine(_:)`.
    ///
    /// With ``Configuration/automaticallySync`` on, it schedules a fetch at once (an engine fetches at launch), and a
    /// send if the restored state holds pending changes. A state serialization of the real CKSyncEngine is not used:
    /// the engine starts empty, and its fetches and sends throw ``PSSyncEngineMisuse/Code/foreignStateSerialization``.
    ///
    /// - Parameter configuration: The database, the state, the delegate and the flags.
    public init(_ configuration: Configuration) {
        database = configuration.database
        delegate = configuration.delegate
        automaticallySync = configuration.automaticallySync
        subscriptionID = configuration.subscriptionID
        scheduler = configuration.scheduler ?? PSSyncScheduler(clock: SystemClock())
        forwarded = nil
        var runtime = Runtime()
        if database.forwarded != nil {
            runtime.configurationMisuse = PSSyncEngineMisuse(
                .cloudKitDatabase,
                "the configuration's database fronts the real CloudKit (CloudKitSyncEngineBridge's); the fake engine "
                    + "runs over a PrivateContainer: PSDatabase(container:)")
        }
        switch configuration.stateSerialization?.storage {
        case nil:
            state = State(StateContents())
        case .fake(let payload)?:
            state = State(StateContents(payload))
        case .cloudKit?:
            state = State(StateContents())
            runtime.configurationMisuse = PSSyncEngineMisuse(
                .foreignStateSerialization,
                "the configuration's state serialization was written by the real CKSyncEngine (format "
                    + "\(State.Serialization.cloudKitFormat)); the fake engine cannot use it. Start the fake engine "
                    + "from nil, or from a state it wrote itself")
        }
        self.runtime = Mutex(runtime)
        restoredPendingRecordZoneChanges = state.contents.withLock { $0.pendingRecordZoneChanges.changes }
        state.owner.withLock { $0.engine = self }
        scheduler.register(self)
        if automaticallySync {
            let now = scheduler.clock.now()
            scheduler.schedule(.fetch, for: self, at: now)
            if hasWorkToSend(in: .all) { scheduler.schedule(.send, for: self, at: now) }
        }
    }

    /// An engine that fronts the real CKSyncEngine: what the bridge hands its delegate, so that one delegate serves
    /// both engines.
    init(
        forwardingTo engine: any ForwardedEngine, state: any ForwardedState, database: PSDatabase,
        delegate: any PSSyncEngineDelegate, automaticallySync: Bool, subscriptionID: PSSubscription.ID?
    ) {
        self.database = database
        self.delegate = delegate
        self.automaticallySync = automaticallySync
        self.subscriptionID = subscriptionID
        self.scheduler = PSSyncScheduler(clock: SystemClock())
        self.state = State(forwardingTo: state)
        self.forwarded = engine
        self.runtime = Mutex(Runtime())
        self.restoredPendingRecordZoneChanges = []
    }

    /// The misuses reported so far (each also printed to standard error and thrown): an empty list is part of the
    /// engine's contract that a sweep checks.
    public var misuses: [PSSyncEngineMisuse] { runtime.withLock { $0.misuses } }

    /// How the last scheduled run failed, or `nil` when it succeeded (scheduled runs have no caller to throw to).
    public var lastScheduledError: (any Error)? { runtime.withLock { $0.lastScheduledError } }

    /// The database and the state's counts.
    public var description: String { "<PSSyncEngine \(database) \(state)>" }

    // MARK: Operations

    /// Runs one operation: refuses a re-entrant call and a foreign state, waits its turn, delivers a state update
    /// left from idle changes, then runs `body`.
    func operation<T: Sendable>(
        _ name: String, _ body: (_ generation: Int) async throws -> T
    ) async throws -> T {
        try checkReentrancy(name)
        if let misuse = runtime.withLock({ $0.configurationMisuse }) { throw misuse }
        guard delegate != nil else {
            let misuse = PSSyncEngineMisuse(
                .delegateReleased,
                "\(name) found no delegate: the engine holds it weakly, as CloudKit's does, and nothing else held it. "
                    + "Keep the delegate for as long as its engine")
            runtime.withLock { $0.misuses.append(misuse) }
            throw misuse
        }
        await gate.acquire()
        defer { gate.release() }
        let generation = runtime.withLock { runtime in
            runtime.inOperation = true
            return runtime.cancelGeneration
        }
        defer { runtime.withLock { $0.inOperation = false } }
        await deliverStateUpdateIfNeeded()
        return try await body(generation)
    }

    /// Whether the engine holds a database change token: whether a fetch of it can report a zone deleted since (one
    /// from no token reports none, as CloudKit's).
    package var hasDatabaseChangeToken: Bool { state.contents.withLock { $0.databaseToken != nil } }

    /// Whether the last fetch of this engine ended with nothing failed (every page of the database's changes and of
    /// each zone it fetched), as its delegate hears `didFetchChanges`: CloudKit's event says nothing of a failure,
    /// and a delegate that shows "up to date" needs to know. `false` before any fetch, and for an engine that fronts
    /// the real CKSyncEngine.
    package var lastFetchSucceeded: Bool { runtime.withLock { $0.lastFetchSucceeded } }

    /// Whether a fetch or send of this engine is under way: the scheduler leaves its due work for later.
    package var isInOperation: Bool { runtime.withLock { $0.inOperation } }

    /// Whether ``cancelOperations()`` was called since the operation of `generation` began.
    func isCancelled(_ generation: Int) -> Bool {
        runtime.withLock { $0.cancelGeneration != generation }
    }

    /// Runs what the scheduler found due.
    func runScheduled(_ work: PSSyncScheduler.Work) async {
        do {
            switch work {
            case .stateUpdate:
                try await operation("a scheduled state update") { _ in }
            case .fetch:
                try await operation("a scheduled fetch") { generation in
                    try await self.performFetch(FetchChangesOptions(), reason: .scheduled, generation: generation)
                }
            case .send:
                try await operation("a scheduled send") { generation in
                    try await self.performSend(SendChangesOptions(), reason: .scheduled, generation: generation)
                }
            }
            runtime.withLock { $0.lastScheduledError = nil }
        } catch {
            runtime.withLock { $0.lastScheduledError = error }
        }
    }

    /// Cancels the fetch or send in progress, as `CKSyncEngine.cancelOperations()`, and returns once it stopped.
    ///
    /// The operation stops before its next request or page: it posts its `did…` event and throws
    /// `operationCancelled`. What it did not send stays pending. Called from inside the delegate's handling of this
    /// engine's event, it marks the operation and returns at once: waiting there would wait for itself.
    public func cancelOperations() async {
        if let forwarded { return await forwarded.cancelOperations() }
        runtime.withLock { $0.cancelGeneration += 1 }
        guard !isInsideOwnDelegateCall else { return }
        await gate.acquire()
        gate.release()
    }

    // MARK: State updates

    func stateDidChange(addedWork: Bool) {
        let now = scheduler.clock.now()
        if !runtime.withLock({ $0.inOperation }) { scheduler.schedule(.stateUpdate, for: self, at: now) }
        if addedWork && automaticallySync { scheduler.schedule(.send, for: self, at: now) }
    }

    /// Posts `.stateUpdate` when the state changed since the last one.
    func deliverStateUpdateIfNeeded() async {
        let serialization = state.contents.withLock { contents -> State.Serialization? in
            guard contents.isDirty else { return nil }
            contents.isDirty = false
            return State.Serialization(payload: contents.payload)
        }
        scheduler.cancel(.stateUpdate, for: self)
        guard let serialization else { return }
        await deliver(.stateUpdate(Event.StateUpdate(stateSerialization: serialization)))
    }

    // MARK: Automatic retries

    /// After a failure, schedules the work again when the engine syncs by itself: after the error's wait, or a
    /// backoff of 1, 2, 4 … up to 15 minutes. An account error waits for the account to change instead (the
    /// scheduler's ``PSSyncScheduler/scheduleAccountChecks()``), and an error no retry cures is not retried.
    func scheduleRetry(_ work: PSSyncScheduler.Work, after error: PSError) {
        guard automaticallySync, Self.isRetryable(error.code),
            error.code != .notAuthenticated, error.code != .accountTemporarilyUnavailable
        else { return }
        let attempt = runtime.withLock { runtime in
            runtime.retryAttempt += 1
            return runtime.retryAttempt
        }
        let wait = error.retryAfterSeconds ?? min(900, Double(1 << min(attempt - 1, 10)))
        scheduler.schedule(work, for: self, at: scheduler.clock.now().addingTimeInterval(wait))
    }

    /// Forgets the failures in a row after an operation that succeeded.
    func noteSuccess() {
        runtime.withLock { $0.retryAttempt = 0 }
    }

    /// The errors CKSyncEngine retries by itself, keeping their changes pending (its documentation names seven);
    /// `operationCancelled` too, which only an account switch or ``cancelOperations()`` causes here.
    package static func isRetryable(_ code: PSError.Code) -> Bool {
        switch code {
        case .notAuthenticated, .accountTemporarilyUnavailable, .networkFailure, .networkUnavailable,
            .requestRateLimited, .serviceUnavailable, .zoneBusy, .operationCancelled:
            true
        default:
            false
        }
    }
}

extension PSSyncEngine {
    /// How to build an engine, as `CKSyncEngine.Configuration`.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The database to sync with.
        public var database: PSDatabase
        /// The state from the last ``PSSyncEngine/Event/stateUpdate(_:)``, or `nil` at the first launch.
        public var stateSerialization: State.Serialization?
        /// The delegate. The engine holds it weakly, as CloudKit does: the app keeps it alive.
        public var delegate: any PSSyncEngineDelegate
        /// Whether the engine syncs on its own: after changes are added, when the server has news (see
        /// ``PSSyncScheduler/schedulePushFetches()``), and to retry after a transient failure. `true` by default;
        /// tests that want every step in their own hands set it to `false`, as Apple advises, and call
        /// ``PSSyncEngine/fetchChanges(_:)`` and ``PSSyncEngine/sendChanges(_:)``.
        public var automaticallySync = true
        /// The subscription the engine relies on for pushes, when an app had its own before it used the engine.
        /// Recorded; this fake has no pushes to subscribe to.
        public var subscriptionID: PSSubscription.ID?
        /// Where automatic syncs and coalesced state updates are scheduled (PrivateSync's own, not Apple's): a
        /// deterministic scheduler the host drives, shared by the engines of one test; `nil` gives the engine one of
        /// its own on the system clock (``PSSyncEngine/scheduler``). Nothing runs in the background: a scheduled
        /// sync runs when the host calls ``PSSyncScheduler/runDue(maximumRuns:)`` or ``PSSyncScheduler/runUntilIdle(maximumRuns:)``.
        public var scheduler: PSSyncScheduler?

        /// Creates a configuration, as `CKSyncEngine.Configuration(database:stateSerialization:delegate:)`.
        ///
        /// - Parameters:
        ///   - database: The database to sync with.
        ///   - stateSerialization: The last state the delegate persisted, or `nil` at the first launch.
        ///   - delegate: The delegate.
        public init(
            database: PSDatabase, stateSerialization: State.Serialization?, delegate: any PSSyncEngineDelegate
        ) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }

        /// The database and the flags.
        public var description: String {
            "Configuration(database: \(database), automaticallySync: \(automaticallySync), stateSerialization: "
                + "\(stateSerialization.map { "\($0)" } ?? "nil"))"
        }
    }
}

extension PSSyncEngine {
    /// Why and how a fetch or a send runs: `FetchChangesContext` and `SendChangesContext`, as
    /// `CKSyncEngine.FetchChangesContext` and `CKSyncEngine.SendChangesContext`, handed to the delegate with each
    /// fetch or send event and to ``PSSyncEngineDelegate/nextFetchChangesOptions(_:syncEngine:)`` and
    /// ``PSSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    public struct SyncContext<Options: Sendable & CustomStringConvertible>: Sendable, CustomStringConvertible {
        /// Why the operation runs.
        public let reason: SyncReason
        /// What it covers.
        public let options: Options

        /// Creates a context (for tests that call a delegate directly; CloudKit's has no public initializer).
        ///
        /// - Parameters:
        ///   - reason: Why the operation runs.
        ///   - options: What it covers.
        public init(reason: SyncReason, options: Options) {
            self.reason = reason
            self.options = options
        }

        /// The reason and the options.
        public var description: String { "Context(reason: \(reason), options: \(options))" }
    }

    /// Why and how a fetch runs, as `CKSyncEngine.FetchChangesContext`.
    public typealias FetchChangesContext = SyncContext<FetchChangesOptions>

    /// Why and how a send runs, as `CKSyncEngine.SendChangesContext`.
    public typealias SendChangesContext = SyncContext<SendChangesOptions>
}

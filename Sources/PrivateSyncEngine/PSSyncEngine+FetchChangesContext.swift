extension PSSyncEngine {
    /// Why and how a fetch runs, as `CKSyncEngine.FetchChangesContext`: handed to the delegate with each fetch event
    /// and to ``PSSyncEngineDelegate/nextFetchChangesOptions(_:syncEngine:)``.
    public struct FetchChangesContext: Sendable, CustomStringConvertible {
        /// Why the fetch runs.
        public let reason: SyncReason
        /// What it covers.
        public let options: FetchChangesOptions

        /// Creates a context (for tests that call a delegate directly; CloudKit's has no public initializer).
        ///
        /// - Parameters:
        ///   - reason: Why the fetch runs.
        ///   - options: What it covers.
        public init(reason: SyncReason, options: FetchChangesOptions) {
            self.reason = reason
            self.options = options
        }

        /// The reason and the options.
        public var description: String { "FetchChangesContext(reason: \(reason), options: \(options))" }
    }
}

extension PSSyncEngine {
    /// Why and how a send runs, as `CKSyncEngine.SendChangesContext`: handed to the delegate with each send event and
    /// to ``PSSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    public struct SendChangesContext: Sendable, CustomStringConvertible {
        /// Why the send runs.
        public let reason: SyncReason
        /// What it covers.
        public let options: SendChangesOptions

        /// Creates a context (for tests that call a delegate directly; CloudKit's has no public initializer).
        ///
        /// - Parameters:
        ///   - reason: Why the send runs.
        ///   - options: What it covers.
        public init(reason: SyncReason, options: SendChangesOptions) {
            self.reason = reason
            self.options = options
        }

        /// The reason and the options.
        public var description: String { "SendChangesContext(reason: \(reason), options: \(options))" }
    }
}

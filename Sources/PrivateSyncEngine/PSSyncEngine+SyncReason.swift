extension PSSyncEngine {
    /// Why the engine is syncing, as `CKSyncEngine.SyncReason`.
    public enum SyncReason: Hashable, Sendable, CustomStringConvertible {
        /// The engine's own schedule: after changes were added, a push, or a retry (driven by a
        /// ``PSSyncScheduler`` here).
        case scheduled
        /// The app called ``PSSyncEngine/fetchChanges(_:)`` or ``PSSyncEngine/sendChanges(_:)``.
        case manual

        /// `scheduled` or `manual`.
        public var description: String {
            switch self {
            case .scheduled: "scheduled"
            case .manual: "manual"
            }
        }
    }
}

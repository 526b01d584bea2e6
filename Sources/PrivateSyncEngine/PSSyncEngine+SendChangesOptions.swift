extension PSSyncEngine {
    /// What a send covers, as `CKSyncEngine.SendChangesOptions`.
    public struct SendChangesOptions: Sendable, CustomStringConvertible {
        /// Which pending changes a send covers, as `CKSyncEngine.SendChangesOptions.Scope`.
        public enum Scope: Hashable, Sendable, CustomStringConvertible {
            /// Every pending change.
            case all
            /// Changes of records in every zone but these.
            case allExcluding([PSRecordZone.ID])
            /// Changes of records in these zones only.
            case zoneIDs([PSRecordZone.ID])
            /// Changes of these records only.
            case recordIDs([PSRecord.ID])

            /// Whether the scope covers a record.
            ///
            /// - Parameter recordID: The record.
            /// - Returns: Whether a send with this scope sends its changes.
            public func contains(_ recordID: PSRecord.ID) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(recordID.zoneID)
                case .zoneIDs(let included): included.contains(recordID.zoneID)
                case .recordIDs(let included): included.contains(recordID)
                }
            }

            /// Whether the scope covers a pending change: whether it covers its record.
            ///
            /// - Parameter pendingChange: The change.
            /// - Returns: Whether a send with this scope sends it.
            public func contains(_ pendingChange: PendingRecordZoneChange) -> Bool {
                contains(pendingChange.recordID)
            }

            /// Whether the scope covers a pending change of a zone: every scope but one of records covers the zones
            /// of its records; a scope of records covers none.
            func contains(_ pendingChange: PendingDatabaseChange) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(pendingChange.zoneID)
                case .zoneIDs(let included): included.contains(pendingChange.zoneID)
                case .recordIDs: false
                }
            }

            /// `all`, `allExcluding(…)`, `zoneIDs(…)` or `recordIDs(…)`, with names.
            public var description: String {
                switch self {
                case .all: "all"
                case .allExcluding(let zones): "allExcluding(\(zones.map(\.zoneName)))"
                case .zoneIDs(let zones): "zoneIDs(\(zones.map(\.zoneName)))"
                case .recordIDs(let records): "recordIDs(\(records.map(\.recordName)))"
                }
            }
        }

        /// The changes to send.
        public var scope: Scope
        /// The group the send's operations belong to.
        public var operationGroup: PSOperationGroup

        /// Creates options, as `CKSyncEngine.SendChangesOptions(scope:operationGroup:)`.
        ///
        /// - Parameters:
        ///   - scope: The changes to send; all by default.
        ///   - operationGroup: The group; a new one by default.
        public init(scope: Scope = .all, operationGroup: PSOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? PSOperationGroup()
        }

        /// The scope.
        public var description: String { "SendChangesOptions(scope: \(scope))" }
    }
}

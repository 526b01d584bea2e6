extension PSSyncEngine {
    /// What a fetch covers, as `CKSyncEngine.FetchChangesOptions`.
    public struct FetchChangesOptions: Sendable, CustomStringConvertible {
        /// Which zones a fetch covers, as `CKSyncEngine.FetchChangesOptions.Scope`.
        public enum Scope: Hashable, Sendable, CustomStringConvertible {
            /// Every zone.
            case all
            /// Every zone but these.
            case allExcluding([PSRecordZone.ID])
            /// These zones only.
            case zoneIDs([PSRecordZone.ID])

            /// Whether the scope covers a zone.
            ///
            /// - Parameter zoneID: The zone.
            /// - Returns: Whether a fetch with this scope fetches it.
            public func contains(_ zoneID: PSRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(zoneID)
                case .zoneIDs(let included): included.contains(zoneID)
                }
            }

            /// `all`, `allExcluding(…)` or `zoneIDs(…)`, with zone names.
            public var description: String {
                switch self {
                case .all: "all"
                case .allExcluding(let zones): "allExcluding(\(zones.map(\.zoneName)))"
                case .zoneIDs(let zones): "zoneIDs(\(zones.map(\.zoneName)))"
                }
            }
        }

        /// The zones to fetch.
        public var scope: Scope
        /// The group the fetch's operations belong to.
        public var operationGroup: PSOperationGroup
        /// Zones to fetch first, in this order; a listed zone with no changes is skipped.
        public var prioritizedZoneIDs: [PSRecordZone.ID] = []

        /// Creates options, as `CKSyncEngine.FetchChangesOptions(scope:operationGroup:)`.
        ///
        /// - Parameters:
        ///   - scope: The zones to fetch; all by default.
        ///   - operationGroup: The group; a new one by default.
        public init(scope: Scope = .all, operationGroup: PSOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? PSOperationGroup()
        }

        /// The scope and the priorities.
        public var description: String {
            "FetchChangesOptions(scope: \(scope), prioritizedZoneIDs: \(prioritizedZoneIDs.map(\.zoneName)))"
        }
    }
}

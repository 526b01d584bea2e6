extension PSSyncEngine {
    /// A change of a zone waiting to be sent, as `CKSyncEngine.PendingDatabaseChange`.
    public enum PendingDatabaseChange: Hashable, Sendable, CustomStringConvertible {
        /// Create the zone.
        case saveZone(PSRecordZone)
        /// Delete the zone and every record in it.
        case deleteZone(PSRecordZone.ID)

        /// The zone the change is about.
        var zoneID: PSRecordZone.ID {
            switch self {
            case .saveZone(let zone): zone.zoneID
            case .deleteZone(let id): id
            }
        }

        /// `saveZone(name)` or `deleteZone(name)`.
        public var description: String {
            switch self {
            case .saveZone(let zone): "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let id): "deleteZone(\(id.zoneName))"
            }
        }
    }
}

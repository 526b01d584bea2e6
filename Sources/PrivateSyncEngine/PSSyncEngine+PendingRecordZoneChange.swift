extension PSSyncEngine {
    /// A change of a record waiting to be sent, as `CKSyncEngine.PendingRecordZoneChange`.
    public enum PendingRecordZoneChange: Hashable, Sendable, CustomStringConvertible {
        /// Save the record: the delegate provides it when the engine asks for a batch.
        case saveRecord(PSRecord.ID)
        /// Delete the record.
        case deleteRecord(PSRecord.ID)

        /// The record the change is about.
        var recordID: PSRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): id
            }
        }

        /// `saveRecord(name)` or `deleteRecord(name)`.
        public var description: String {
            switch self {
            case .saveRecord(let id): "saveRecord(\(id.recordName) in \(id.zoneID.zoneName))"
            case .deleteRecord(let id): "deleteRecord(\(id.recordName) in \(id.zoneID.zoneName))"
            }
        }
    }
}

extension PSSyncEngine {
    /// The records a send puts in one request, as `CKSyncEngine.RecordZoneChangeBatch`: what the delegate returns
    /// from ``PSSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    public struct RecordZoneChangeBatch: Sendable, CustomStringConvertible {
        /// The most changes a batch built from pending changes holds: CloudKit's 400 items per request (Apple does
        /// not publish CKSyncEngine's own number).
        public static let maximumItemCount = CloudLimits.cloudKit.maximumItemsPerRequest
        /// The most bytes of record fields a batch built from pending changes holds: CloudKit's 2 MB per request.
        public static let maximumByteCount = CloudLimits.cloudKit.maximumRequestBytes

        /// The records to save.
        public var recordsToSave: [PSRecord]
        /// The records to delete.
        public var recordIDsToDelete: [PSRecord.ID]
        /// Whether one failing change fails every other change of its zone in the batch (with
        /// `batchRequestFailed`). There is no atomicity across zones.
        public var atomicByZone: Bool
        /// Whether the engine sized the batch (``init(pendingChanges:recordProvider:)``): a request the server
        /// refuses as too large is then the engine's to split, where a batch the delegate put together itself gets
        /// `limitExceeded` for each of its changes, as Apple's documentation warns.
        let sizedByEngine: Bool

        /// Builds a batch from pending changes, as `CKSyncEngine.RecordZoneChangeBatch(pendingChanges:recordProvider:)`.
        ///
        /// Walks the changes in order until the batch holds ``maximumItemCount`` changes or
        /// ``maximumByteCount`` bytes of fields. For each save it asks the provider for the record; a `nil` skips
        /// that change (the delegate may remove it from the state there, as Apple's sample does). A change whose
        /// record is named by an earlier change of the walk is skipped.
        ///
        /// - Parameters:
        ///   - pendingChanges: The changes, usually the state's pending ones filtered by the send's scope.
        ///   - recordProvider: The record to save for an identifier, or `nil` to skip it.
        /// - Returns: The batch, or `nil` when it would hold nothing.
        public init?(
            pendingChanges: [PendingRecordZoneChange],
            recordProvider: @Sendable (PSRecord.ID) async -> PSRecord?
        ) async {
            var saves: [PSRecord] = []
            var deletes: [PSRecord.ID] = []
            var named = Set<PSRecord.ID>()
            var bytes = 0
            for change in pendingChanges {
                if saves.count + deletes.count >= Self.maximumItemCount { break }
                guard named.insert(change.recordID).inserted else { continue }
                switch change {
                case .deleteRecord(let id):
                    bytes += id.recordName.utf8.count
                    deletes.append(id)
                case .saveRecord(let id):
                    guard let record = await recordProvider(id) else { continue }
                    let size = record.containerRecord.encodedSize
                    // A record too large for any request still goes, alone: the server names it with limitExceeded.
                    if bytes + size > Self.maximumByteCount && !(saves.isEmpty && deletes.isEmpty) { break }
                    bytes += size
                    saves.append(record)
                }
            }
            guard !saves.isEmpty || !deletes.isEmpty else { return nil }
            self.recordsToSave = saves
            self.recordIDsToDelete = deletes
            self.atomicByZone = false
            self.sizedByEngine = true
        }

        /// Builds a batch of the delegate's own choosing, as
        /// `CKSyncEngine.RecordZoneChangeBatch(recordsToSave:recordIDsToDelete:atomicByZone:)`.
        ///
        /// The delegate keeps within CloudKit's limits (400 changes and 2 MB a request); a batch over them fails
        /// with `limitExceeded` for each of its changes.
        ///
        /// - Parameters:
        ///   - recordsToSave: The records to save.
        ///   - recordIDsToDelete: The records to delete.
        ///   - atomicByZone: Whether one failing change fails the others of its zone.
        public init(recordsToSave: [PSRecord] = [], recordIDsToDelete: [PSRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
            self.sizedByEngine = false
        }

        /// The counts and the atomicity.
        public var description: String {
            "RecordZoneChangeBatch(recordsToSave: \(recordsToSave.count), recordIDsToDelete: "
                + "\(recordIDsToDelete.count), atomicByZone: \(atomicByZone))"
        }
    }
}

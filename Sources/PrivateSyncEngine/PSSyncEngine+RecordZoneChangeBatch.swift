extension PSSyncEngine {
    /// The records a send puts in one request, as `CKSyncEngine.RecordZoneChangeBatch`: what the delegate returns
    /// from ``PSSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    public struct RecordZoneChangeBatch: Sendable, CustomStringConvertible {
        /// The most changes a batch built from pending changes holds: CloudKit's 400 items per request (Apple does
        /// not publish CKSyncEngine's own number). Its size in bytes is not measured here: a request the server
        /// refuses as too large (over 2 MB) is split by the engine, which sized the batch.
        public static let maximumItemCount = CloudLimits.cloudKit.maximumItemsPerRequest

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
        /// Walks the changes in order until the batch holds ``maximumItemCount`` changes. For each save it asks the
        /// provider for the record; a `nil` skips that change (the delegate may remove it from the state there, as
        /// Apple's sample does). A change whose record is named by an earlier change of the walk is skipped. The
        /// engine splits a request of the batch that the server refuses as too large.
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
            for change in pendingChanges {
                if saves.count + deletes.count >= Self.maximumItemCount { break }
                guard named.insert(change.recordID).inserted else { continue }
                switch change {
                case .deleteRecord(let id):
                    deletes.append(id)
                case .saveRecord(let id):
                    guard let record = await recordProvider(id) else { continue }
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

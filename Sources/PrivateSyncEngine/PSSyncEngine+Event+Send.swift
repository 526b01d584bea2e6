extension PSSyncEngine.Event {
    /// The outcome of sending zone changes, as `CKSyncEngine.Event.SentDatabaseChanges`.
    public struct SentDatabaseChanges: Sendable, CustomStringConvertible {
        /// A zone the server did not save, and why, as `CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave`.
        public struct FailedZoneSave: Sendable, CustomStringConvertible {
            /// The zone.
            public let zone: PSRecordZone
            /// Why it was not saved.
            public let error: PSError

            /// Creates a failure.
            ///
            /// - Parameters:
            ///   - zone: The zone.
            ///   - error: Why it was not saved.
            public init(zone: PSRecordZone, error: PSError) {
                self.zone = zone
                self.error = error
            }

            /// The zone's name and the error's code.
            public var description: String { "FailedZoneSave(\(zone.zoneID.zoneName), \(error.code.name))" }
        }

        /// Zones saved.
        public let savedZones: [PSRecordZone]
        /// Zones not saved, each with its error.
        public let failedZoneSaves: [FailedZoneSave]
        /// Zones deleted.
        public let deletedZoneIDs: [PSRecordZone.ID]
        /// Zones not deleted, each with its error.
        public let failedZoneDeletes: [PSRecordZone.ID: PSError]

        /// Creates the payload.
        ///
        /// - Parameters:
        ///   - savedZones: Zones saved.
        ///   - failedZoneSaves: Zones not saved.
        ///   - deletedZoneIDs: Zones deleted.
        ///   - failedZoneDeletes: Zones not deleted.
        public init(
            savedZones: [PSRecordZone], failedZoneSaves: [FailedZoneSave], deletedZoneIDs: [PSRecordZone.ID],
            failedZoneDeletes: [PSRecordZone.ID: PSError]
        ) {
            self.savedZones = savedZones
            self.failedZoneSaves = failedZoneSaves
            self.deletedZoneIDs = deletedZoneIDs
            self.failedZoneDeletes = failedZoneDeletes
        }

        /// The counts.
        public var description: String {
            "SentDatabaseChanges(saved: \(savedZones.count), failedSaves: \(failedZoneSaves.count), deleted: "
                + "\(deletedZoneIDs.count), failedDeletes: \(failedZoneDeletes.count))"
        }
    }

    /// The outcome of sending a batch, as `CKSyncEngine.Event.SentRecordZoneChanges`.
    public struct SentRecordZoneChanges: Sendable, CustomStringConvertible {
        /// A record the server did not save, and why, as `CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave`.
        public struct FailedRecordSave: Sendable, CustomStringConvertible {
            /// The record the delegate sent.
            public let record: PSRecord
            /// Why it was not saved: `serverRecordChanged` carries the server's record to merge into.
            public let error: PSError

            /// Creates a failure.
            ///
            /// - Parameters:
            ///   - record: The record sent.
            ///   - error: Why it was not saved.
            public init(record: PSRecord, error: PSError) {
                self.record = record
                self.error = error
            }

            /// The record's name and the error's code.
            public var description: String {
                "FailedRecordSave(\(record.recordID.recordName), \(error.code.name))"
            }
        }

        /// Records saved, as the server now holds them (with their new change tags).
        public let savedRecords: [PSRecord]
        /// Records not saved, each with its error.
        public let failedRecordSaves: [FailedRecordSave]
        /// Records deleted.
        public let deletedRecordIDs: [PSRecord.ID]
        /// Records not deleted, each with its error.
        public let failedRecordDeletes: [PSRecord.ID: PSError]

        /// Creates the payload.
        ///
        /// - Parameters:
        ///   - savedRecords: Records saved.
        ///   - failedRecordSaves: Records not saved.
        ///   - deletedRecordIDs: Records deleted.
        ///   - failedRecordDeletes: Records not deleted.
        public init(
            savedRecords: [PSRecord], failedRecordSaves: [FailedRecordSave], deletedRecordIDs: [PSRecord.ID],
            failedRecordDeletes: [PSRecord.ID: PSError]
        ) {
            self.savedRecords = savedRecords
            self.failedRecordSaves = failedRecordSaves
            self.deletedRecordIDs = deletedRecordIDs
            self.failedRecordDeletes = failedRecordDeletes
        }

        /// The counts.
        public var description: String {
            "SentRecordZoneChanges(saved: \(savedRecords.count), failedSaves: \(failedRecordSaves.count), deleted: "
                + "\(deletedRecordIDs.count), failedDeletes: \(failedRecordDeletes.count))"
        }
    }
}

extension PSSyncEngine.Event {
    /// Zones changed or deleted on the server, as `CKSyncEngine.Event.FetchedDatabaseChanges`.
    public struct FetchedDatabaseChanges: Sendable, CustomStringConvertible {
        /// Zones created, or holding changed records.
        public let modifications: [PSDatabase.DatabaseChange.Modification]
        /// Zones deleted, each with its reason.
        public let deletions: [PSDatabase.DatabaseChange.Deletion]

        /// Creates the payload.
        ///
        /// - Parameters:
        ///   - modifications: Zones created or changed.
        ///   - deletions: Zones deleted.
        public init(
            modifications: [PSDatabase.DatabaseChange.Modification], deletions: [PSDatabase.DatabaseChange.Deletion]
        ) {
            self.modifications = modifications
            self.deletions = deletions
        }

        /// The counts.
        public var description: String {
            "FetchedDatabaseChanges(modifications: \(modifications.count), deletions: \(deletions.count))"
        }
    }

    /// Records changed or deleted on the server, as `CKSyncEngine.Event.FetchedRecordZoneChanges`.
    public struct FetchedRecordZoneChanges: Sendable, CustomStringConvertible {
        /// Records created or changed, as the server holds them.
        public let modifications: [PSDatabase.RecordZoneChange.Modification]
        /// Records deleted.
        public let deletions: [PSDatabase.RecordZoneChange.Deletion]

        /// Creates the payload.
        ///
        /// - Parameters:
        ///   - modifications: Records created or changed.
        ///   - deletions: Records deleted.
        public init(
            modifications: [PSDatabase.RecordZoneChange.Modification],
            deletions: [PSDatabase.RecordZoneChange.Deletion]
        ) {
            self.modifications = modifications
            self.deletions = deletions
        }

        /// The counts.
        public var description: String {
            "FetchedRecordZoneChanges(modifications: \(modifications.count), deletions: \(deletions.count))"
        }
    }

    /// The fetch of one zone begins, as `CKSyncEngine.Event.WillFetchRecordZoneChanges`.
    public struct WillFetchRecordZoneChanges: Sendable, CustomStringConvertible {
        /// The zone.
        public let zoneID: PSRecordZone.ID

        /// Creates the payload.
        ///
        /// - Parameter zoneID: The zone.
        public init(zoneID: PSRecordZone.ID) {
            self.zoneID = zoneID
        }

        /// The zone's name.
        public var description: String { "WillFetchRecordZoneChanges(\(zoneID.zoneName))" }
    }

    /// The fetch of one zone ended, as `CKSyncEngine.Event.DidFetchRecordZoneChanges`.
    public struct DidFetchRecordZoneChanges: Sendable, CustomStringConvertible {
        /// The zone.
        public let zoneID: PSRecordZone.ID
        /// Why the fetch of the zone failed, or `nil` when it fetched everything.
        public let error: PSError?

        /// Creates the payload.
        ///
        /// - Parameters:
        ///   - zoneID: The zone.
        ///   - error: The failure, or `nil`.
        public init(zoneID: PSRecordZone.ID, error: PSError?) {
            self.zoneID = zoneID
            self.error = error
        }

        /// The zone's name and the error's code.
        public var description: String {
            "DidFetchRecordZoneChanges(\(zoneID.zoneName)\(error.map { ", error: \($0.code.name)" } ?? ""))"
        }
    }
}

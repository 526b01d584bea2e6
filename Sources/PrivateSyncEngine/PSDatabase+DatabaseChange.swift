extension PSDatabase {
    /// The changes of a database's zones, as `CKDatabase.DatabaseChange`: the types a
    /// ``PSSyncEngine/Event/FetchedDatabaseChanges`` event holds.
    public enum DatabaseChange {
        /// A zone created, or holding changed records.
        public struct Modification: Hashable, Sendable {
            /// The zone.
            public let zoneID: PSRecordZone.ID

            /// Creates a modification (for tests that build events; CloudKit's has no public initializer).
            ///
            /// - Parameter zoneID: The zone.
            public init(zoneID: PSRecordZone.ID) {
                self.zoneID = zoneID
            }
        }

        /// A zone that was deleted, and why.
        public struct Deletion: Hashable, Sendable {
            /// Why a zone is gone, as `CKDatabase.DatabaseChange.Deletion.Reason`.
            public enum Reason: Hashable, Sendable {
                /// An app deleted it: delete the local data of the zone.
                case deleted
                /// The user deleted the app's data from iCloud settings: delete the local data, and do not upload
                /// it again without the user's consent.
                case purged
                /// The user reset the account's encrypted data: upload the local data again, so that little is lost.
                case encryptedDataReset
            }

            /// The zone.
            public let zoneID: PSRecordZone.ID
            /// Why it is gone.
            public let reason: Reason

            /// Creates a deletion (for tests that build events; CloudKit's has no public initializer).
            ///
            /// - Parameters:
            ///   - zoneID: The zone.
            ///   - reason: Why it is gone.
            public init(zoneID: PSRecordZone.ID, reason: Reason) {
                self.zoneID = zoneID
                self.reason = reason
            }
        }
    }
}

extension PSDatabase.DatabaseChange.Deletion.Reason {
    /// The reason the container reported.
    init(_ reason: DatabaseChanges.DeletionReason) {
        switch reason {
        case .deleted: self = .deleted
        case .purged: self = .purged
        case .encryptedDataReset: self = .encryptedDataReset
        }
    }
}

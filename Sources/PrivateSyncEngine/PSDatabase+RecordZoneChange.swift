extension PSDatabase {
    /// The changes of a zone's records, as `CKDatabase.RecordZoneChange`: the types a
    /// ``PSSyncEngine/Event/FetchedRecordZoneChanges`` event holds.
    public enum RecordZoneChange {
        /// A record created or changed.
        public struct Modification: Hashable, Sendable {
            /// The record as the server holds it.
            public let record: PSRecord

            /// Creates a modification (for tests that build events; CloudKit's has no public initializer).
            ///
            /// - Parameter record: The record.
            public init(record: PSRecord) {
                self.record = record
            }
        }

        /// A record deleted.
        public struct Deletion: Hashable, Sendable {
            /// The deleted record's identifier.
            public let recordID: PSRecord.ID
            /// The deleted record's type.
            public let recordType: PSRecord.RecordType

            /// Creates a deletion (for tests that build events; CloudKit's has no public initializer).
            ///
            /// - Parameters:
            ///   - recordID: The deleted record's identifier.
            ///   - recordType: Its type.
            public init(recordID: PSRecord.ID, recordType: PSRecord.RecordType) {
                self.recordID = recordID
                self.recordType = recordType
            }
        }
    }
}

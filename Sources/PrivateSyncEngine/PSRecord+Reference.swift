extension PSRecord {
    /// What happens to a record that refers to another when that one is deleted, as `CKRecord.ReferenceAction`.
    public enum ReferenceAction: UInt, Hashable, Sendable {
        /// Nothing.
        case none = 0
        /// The referring record is deleted too (recorded, not cascaded, by this fake).
        case deleteSelf = 1
    }

    /// A reference from one record to another, as `CKRecord.Reference`.
    public struct Reference: Hashable, Sendable, CustomStringConvertible {
        /// The record referred to.
        public let recordID: ID
        /// What happens to the referring record when that one is deleted.
        public let action: ReferenceAction

        /// Creates a reference, as `CKRecord.Reference(recordID:action:)`.
        ///
        /// - Parameters:
        ///   - recordID: The record referred to.
        ///   - action: What happens to the referring record when that one is deleted.
        public init(recordID: ID, action: ReferenceAction) {
            self.recordID = recordID
            self.action = action
        }

        /// Creates a reference to a record, as `CKRecord.Reference(record:action:)`.
        ///
        /// - Parameters:
        ///   - record: The record referred to.
        ///   - action: What happens to the referring record when that one is deleted.
        public init(record: PSRecord, action: ReferenceAction) {
            self.init(recordID: record.recordID, action: action)
        }

        /// The reference as the container stores it.
        var containerReference: RecordReference {
            RecordReference(recordID: recordID.containerRecordID, action: action == .deleteSelf ? .deleteSelf : .none)
        }

        /// A reference the container stored.
        init(_ reference: RecordReference) {
            self.init(recordID: ID(reference.recordID), action: reference.action == .deleteSelf ? .deleteSelf : .none)
        }

        /// The record referred to, and the action.
        public var description: String { "PSRecord.Reference(\(recordID.recordName), \(action))" }
    }
}

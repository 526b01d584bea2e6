/// How a save treats the server's version of a record, as `CKModifyRecordsOperation.RecordSavePolicy`.
public enum SavePolicy: String, Sendable, Hashable, CaseIterable {
    /// The default: the save applies only when the record's change tag matches the server's; otherwise it fails
    /// with `serverRecordChanged`, carrying the server, client and ancestor records. A record with no change tag
    /// is a create, and fails the same way when the record exists.
    case ifServerRecordUnchanged
    /// No comparison: the keys the client changed are written onto the server's record.
    case changedKeys
    /// No comparison: the client's record replaces the server's, every key.
    case allKeys
}

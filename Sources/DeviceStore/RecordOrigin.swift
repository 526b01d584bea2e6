import PrivateCloud

/// A record's name and the account it was written under, without its fields (``RecordStore/origins()``).
public struct RecordOrigin: Sendable, Hashable {
    /// The record's name.
    public let name: String
    /// The user record of the account it was written under, as ``StoredRecord/origin``.
    public let origin: UserRecordID?
}

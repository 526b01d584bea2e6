/// One call to a `PrivateContainer`, with its arguments: what an ``InterceptingContainer`` sees, and hands on to
/// its base (changed or not) with `PrivateContainer/perform(_:)`.
public enum InterceptedCall: Sendable {
    /// `PrivateContainer/accountStatus()`.
    case accountStatus
    /// `PrivateContainer/userRecordID()`.
    case userRecordID
    /// `PrivateContainer/saveZones(_:)`.
    case saveZones([RecordZone])
    /// `PrivateContainer/deleteZones(_:)`.
    case deleteZones([ZoneID])
    /// `PrivateContainer/allZones()`.
    case allZones
    /// `PrivateContainer/records(for:)`.
    case records([RecordID])
    /// `PrivateContainer/modifyRecords(saving:deleting:savePolicy:atomically:)`.
    case modifyRecords(saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool)
    /// `PrivateContainer/recordZoneChanges(in:since:resultsLimit:)`.
    case recordZoneChanges(in: ZoneID, since: ChangeToken?, resultsLimit: Int?)
    /// `PrivateContainer/databaseChanges(since:resultsLimit:)`.
    case databaseChanges(since: ChangeToken?, resultsLimit: Int?)

    /// Which of the nine calls it is, without its arguments.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `PrivateContainer/accountStatus()`.
        case accountStatus
        /// `PrivateContainer/userRecordID()`.
        case userRecordID
        /// Saving zones.
        case saveZones
        /// Deleting zones.
        case deleteZones
        /// Listing every zone.
        case allZones
        /// Fetching records by ID.
        case records
        /// Saving and deleting records in one request.
        case modifyRecords
        /// `PrivateContainer/recordZoneChanges(in:since:resultsLimit:)`.
        case recordZoneChanges
        /// `PrivateContainer/databaseChanges(since:resultsLimit:)`.
        case databaseChanges
    }

    /// What a call returns.
    public enum Reply: Sendable {
        /// The answer to ``InterceptedCall/accountStatus``.
        case accountStatus(AccountStatus)
        /// The answer to ``InterceptedCall/userRecordID``.
        case userRecordID(UserRecordID)
        /// The answer to ``InterceptedCall/saveZones(_:)`` and ``InterceptedCall/allZones``.
        case zones([RecordZone])
        /// The answer to ``InterceptedCall/deleteZones(_:)``.
        case zonesDeleted
        /// The answer to ``InterceptedCall/records(_:)``.
        case records([RecordID: Result<Record, CloudError>])
        /// The answer to ``InterceptedCall/modifyRecords(saving:deleting:savePolicy:atomically:)``.
        case modified(ModifyResult)
        /// The answer to ``InterceptedCall/recordZoneChanges(in:since:resultsLimit:)``.
        case zoneChanges(RecordZoneChanges)
        /// The answer to ``InterceptedCall/databaseChanges(since:resultsLimit:)``.
        case databaseChanges(DatabaseChanges)
    }

    /// Which call it is.
    public var kind: Kind {
        switch self {
        case .accountStatus: .accountStatus
        case .userRecordID: .userRecordID
        case .saveZones: .saveZones
        case .deleteZones: .deleteZones
        case .allZones: .allZones
        case .records: .records
        case .modifyRecords: .modifyRecords
        case .recordZoneChanges: .recordZoneChanges
        case .databaseChanges: .databaseChanges
        }
    }
}

/// A container that passes every call to another one, so that a wrapper (a test double, an instrument) implements
/// only the calls it changes.
public protocol ForwardingContainer: PrivateContainer {
    /// The container calls go to.
    var base: any PrivateContainer { get }
}

extension ForwardingContainer {
    public var identifier: ContainerIdentifier { base.identifier }

    public func accountStatus() async -> AccountStatus {
        await base.accountStatus()
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        try await base.userRecordID()
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        try await base.saveZones(zones)
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        try await base.deleteZones(zoneIDs)
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        try await base.allZones()
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try await base.records(for: recordIDs)
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        try await base.modifyRecords(saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        try await base.databaseChanges(since: token, resultsLimit: resultsLimit)
    }
}

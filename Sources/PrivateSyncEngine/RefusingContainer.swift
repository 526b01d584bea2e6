/// The container of a database that fronts the real CloudKit: the fake engine must never reach it (it refuses such
/// a configuration first), and every call it could make fails with `badDatabase` saying why.
struct RefusingContainer: PrivateContainer {
    // A literal identifier that ContainerIdentifier's rules accept: the try cannot fail.
    let identifier = try! ContainerIdentifier("iCloud.privatesync.cloudkit-bridge")

    private var refusal: CloudError {
        CloudError(
            .badDatabase,
            "this database is the real CloudKit's (CloudKitSyncEngineBridge); the fake engine runs over a "
                + "PrivateContainer (PSDatabase(container:))")
    }

    func accountStatus() async -> AccountStatus { .couldNotDetermine }
    func userRecordID() async throws(CloudError) -> UserRecordID { throw refusal }
    func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] { throw refusal }
    func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) { throw refusal }
    func allZones() async throws(CloudError) -> [RecordZone] { throw refusal }
    func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        throw refusal
    }
    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult { throw refusal }
    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError) -> RecordZoneChanges { throw refusal }
    func databaseChanges(since token: ChangeToken?, resultsLimit: Int?) async throws(CloudError) -> DatabaseChanges {
        throw refusal
    }
}

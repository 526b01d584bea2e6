/// Where a database's requests go when it fronts a real `CKDatabase` (the bridge's).
protocol ForwardedDatabase: Sendable {
    func record(for recordID: PSRecord.ID) async throws(PSError) -> PSRecord
    func modifyRecords(
        saving recordsToSave: [PSRecord], deleting recordIDsToDelete: [PSRecord.ID], savePolicy: SavePolicy,
        atomically: Bool
    ) async throws(PSError) -> (
        saveResults: [PSRecord.ID: Result<PSRecord, PSError>], deleteResults: [PSRecord.ID: Result<Void, PSError>]
    )
    func save(_ zone: PSRecordZone) async throws(PSError) -> PSRecordZone
    func deleteRecordZone(withID zoneID: PSRecordZone.ID) async throws(PSError)
    func allRecordZones() async throws(PSError) -> [PSRecordZone]
}

extension InterceptedCall.Reply {
    /// The error for an interceptor that answered a call with the reply to another.
    private func mismatch(_ expected: InterceptedCall.Kind) -> CloudError {
        CloudError(.internalError, "an intercepting container answered \(expected.rawValue) with \(self)")
    }

    func accountStatus() throws(CloudError) -> AccountStatus {
        guard case .accountStatus(let status) = self else { throw mismatch(.accountStatus) }
        return status
    }

    func userRecordID() throws(CloudError) -> UserRecordID {
        guard case .userRecordID(let id) = self else { throw mismatch(.userRecordID) }
        return id
    }

    func zones(_ kind: InterceptedCall.Kind) throws(CloudError) -> [RecordZone] {
        guard case .zones(let zones) = self else { throw mismatch(kind) }
        return zones
    }

    func zonesDeleted() throws(CloudError) {
        guard case .zonesDeleted = self else { throw mismatch(.deleteZones) }
    }

    func records() throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        guard case .records(let records) = self else { throw mismatch(.records) }
        return records
    }

    func modified() throws(CloudError) -> ModifyResult {
        guard case .modified(let result) = self else { throw mismatch(.modifyRecords) }
        return result
    }

    func zoneChanges() throws(CloudError) -> RecordZoneChanges {
        guard case .zoneChanges(let changes) = self else { throw mismatch(.recordZoneChanges) }
        return changes
    }

    func databaseChanges() throws(CloudError) -> DatabaseChanges {
        guard case .databaseChanges(let changes) = self else { throw mismatch(.databaseChanges) }
        return changes
    }
}

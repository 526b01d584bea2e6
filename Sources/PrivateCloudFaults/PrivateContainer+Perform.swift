extension PrivateContainer {
    /// Makes a call described as a value: what an ``InterceptingContainer`` uses to hand a call on to its base.
    ///
    /// - Parameter call: The call and its arguments.
    /// - Returns: The call's reply.
    /// - Throws: `CloudError`: whatever the call throws.
    public func perform(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        switch call {
        case .accountStatus:
            return .accountStatus(await accountStatus())
        case .userRecordID:
            return .userRecordID(try await userRecordID())
        case .saveZones(let zones):
            return .zones(try await saveZones(zones))
        case .deleteZones(let zoneIDs):
            try await deleteZones(zoneIDs)
            return .zonesDeleted
        case .allZones:
            return .zones(try await allZones())
        case .records(let recordIDs):
            return .records(try await records(for: recordIDs))
        case .modifyRecords(let saving, let deleting, let savePolicy, let atomically):
            return .modified(
                try await modifyRecords(
                    saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically))
        case .recordZoneChanges(let zoneID, let token, let resultsLimit):
            return .zoneChanges(try await recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit))
        case .databaseChanges(let token, let resultsLimit):
            return .databaseChanges(try await databaseChanges(since: token, resultsLimit: resultsLimit))
        }
    }
}

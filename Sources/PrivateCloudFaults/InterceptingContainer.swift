/// A container that wraps another and sees every call at one point, ``intercept(_:)``: a fault injector, an
/// observer, a crash. The nine calls of `PrivateContainer` are implemented once, here, by describing each as an
/// ``InterceptedCall`` and unwrapping its ``InterceptedCall/Reply``.
///
/// An interceptor hands a call on to the container it wraps with `PrivateContainer/perform(_:)`, changed or not,
/// as many times as it likes, or answers it itself; it gives its `PrivateContainer/identifier` itself. (Compare
/// ``ForwardingContainer``, for a wrapper that changes one or two calls and forwards the rest.)
public protocol InterceptingContainer: PrivateContainer {
    /// Makes one call: every call of the container comes through here.
    ///
    /// - Parameter call: The call and its arguments.
    /// - Returns: The reply to that call (a reply of another kind is reported as `internalError`).
    /// - Throws: `CloudError`: what the call fails with.
    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply
}

extension InterceptingContainer {
    /// The account status; an interceptor that fails the call makes it `couldNotDetermine`, as CloudKit reports an
    /// account status it could not fetch.
    public func accountStatus() async -> AccountStatus {
        do {
            return try await intercept(.accountStatus).accountStatus()
        } catch {
            return .couldNotDetermine
        }
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        try await intercept(.userRecordID).userRecordID()
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        try await intercept(.saveZones(zones)).zones(.saveZones)
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        try await intercept(.deleteZones(zoneIDs)).zonesDeleted()
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        try await intercept(.allZones).zones(.allZones)
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try await intercept(.records(recordIDs)).records()
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        try await intercept(
            .modifyRecords(saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        ).modified()
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError) -> RecordZoneChanges {
        try await intercept(.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)).zoneChanges()
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        try await intercept(.databaseChanges(since: token, resultsLimit: resultsLimit)).databaseChanges()
    }
}

/// The private database of the signed-in iCloud user in one CloudKit container, as an app sees it.
///
/// Every call goes to the database of the account signed in at that moment, and fails with `notAuthenticated` or
/// `accountTemporarilyUnavailable` when the account status says so. Nothing in this protocol reaches another
/// account's data, and nothing enumerates users. Backends: ``FileContainer`` (one SQLite file per account and
/// container; the default) and ``MemoryContainer``; PrivateCloudFaults' `FaultInjectingContainer` wraps either.
public protocol PrivateContainer: Sendable {
    /// The container's identifier.
    var identifier: ContainerIdentifier { get }

    /// The device's account status, as `CKContainer.accountStatus()`.
    func accountStatus() async -> AccountStatus

    /// The signed-in user's record identifier, as `CKContainer.userRecordID()`.
    ///
    /// - Throws: ``CloudError`` `notAuthenticated` without an account.
    func userRecordID() async throws(CloudError) -> UserRecordID

    /// Creates zones; a zone that exists already is returned as it is.
    ///
    /// - Parameter zones: The zones; all custom.
    /// - Returns: The zones as saved.
    /// - Throws: ``CloudError``: `limitExceeded` past 1000 custom zones, `invalidArguments` for the default zone.
    ///   The request is applied whole or not at all.
    func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone]

    /// Deletes zones and every record in them.
    ///
    /// - Parameter zoneIDs: The zones; all custom.
    /// - Throws: ``CloudError``: `zoneNotFound` for a zone that does not exist, `invalidArguments` for the default
    ///   zone. The request is applied whole or not at all.
    func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError)

    /// Every zone of the database, the default zone first.
    func allZones() async throws(CloudError) -> [RecordZone]

    /// Fetches records by identifier.
    ///
    /// - Parameter recordIDs: The identifiers.
    /// - Returns: Each record, or its error (`unknownItem`, `zoneNotFound`, `userDeletedZone`).
    func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>]

    /// Saves and deletes records in one request.
    ///
    /// - Parameters:
    ///   - saving: Records to save.
    ///   - deleting: Records to delete.
    ///   - savePolicy: How saves treat the server's version.
    ///   - atomically: In zones that can (custom zones), whether one failing item fails every item of its zone.
    /// - Returns: Each item's outcome; ``ModifyResult/partialFailure`` wraps the failures as CloudKit does.
    /// - Throws: ``CloudError`` for the request as a whole: `limitExceeded` past 400 items or 2 MB,
    ///   `invalidArguments` for an item named twice, and any account or service error.
    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult

    /// One page of a zone's changes since a token.
    ///
    /// - Parameters:
    ///   - zoneID: A custom zone.
    ///   - token: Where the last fetch ended, or `nil` for everything.
    ///   - resultsLimit: The most changes to return; the server may return fewer.
    /// - Returns: Changed records, deletions, the new token, and whether more are coming.
    /// - Throws: ``CloudError``: `changeTokenExpired` for a token the zone no longer accepts, `zoneNotFound`,
    ///   `userDeletedZone`, `invalidArguments` for the default zone (which cannot fetch changes).
    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges

    /// One page of the database's zone changes since a token: zones changed, deleted, or purged by the user.
    ///
    /// - Parameters:
    ///   - token: Where the last fetch ended, or `nil` for everything.
    ///   - resultsLimit: The most changes to return.
    /// - Returns: The changes and the new token.
    /// - Throws: ``CloudError`` `changeTokenExpired` for a token of another database.
    func databaseChanges(since token: ChangeToken?, resultsLimit: Int?) async throws(CloudError) -> DatabaseChanges
}

extension PrivateContainer {
    /// Saves and deletes with the default policy, atomically.
    public func modifyRecords(saving: [Record], deleting: [RecordID]) async throws(CloudError) -> ModifyResult {
        try await modifyRecords(
            saving: saving, deleting: deleting, savePolicy: .ifServerRecordUnchanged, atomically: true)
    }

    /// Fetches one record.
    ///
    /// - Parameter recordID: The identifier.
    /// - Returns: The record.
    /// - Throws: ``CloudError`` `unknownItem` when there is no such record, or any error of the request.
    public func record(for recordID: RecordID) async throws(CloudError) -> Record {
        let results = try await records(for: [recordID])
        guard let result = results[recordID] else { throw CloudError(.internalError, "no result for \(recordID)") }
        return try result.get()
    }
}

/// What the user can do to their private database outside the app, in Settings › iCloud › Manage Storage.
///
/// These are the user's actions on Apple's servers, so they act on the signed-in account whatever its status: an
/// account this device reads as temporarily unavailable or restricted does not stop them. With no account signed in
/// they fail with `notAuthenticated`.
public protocol ICloudSettingsControls: Sendable {
    /// Deletes a zone as the user does when they delete the app's data from iCloud settings.
    ///
    /// The zone and its records are gone; later calls on it fail with `userDeletedZone` until an app creates the
    /// zone again, and database changes report it as purged.
    ///
    /// - Parameter zoneID: The zone.
    /// - Throws: ``CloudError`` `zoneNotFound` when there is no such zone.
    func deleteZoneFromICloudSettings(_ zoneID: ZoneID) async throws(CloudError)

    /// Purges a zone as resetting the account's encrypted data does (the user, recovering the account without
    /// a trusted device, resets the keys, and what was encrypted with the old ones cannot be read).
    ///
    /// The zone and its records are gone; database changes report it with reason `encryptedDataReset`, and later
    /// calls on it fail with `zoneNotFound` until an app creates the zone again.
    ///
    /// - Parameter zoneID: A custom zone.
    /// - Throws: ``CloudError`` `zoneNotFound` when there is no such zone, `invalidArguments` for the default zone.
    func purgeZoneForEncryptedDataReset(_ zoneID: ZoneID) async throws(CloudError)
}

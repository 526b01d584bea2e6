/// A container whose calls run ``PrivateDatabase``'s semantics over the signed-in account's storage.
///
/// ``FileContainer`` and ``MemoryContainer`` differ only in where an account's database lives; everything an app
/// can call is implemented once, here.
protocol StorageBackedContainer: PrivateContainer, ICloudSettingsControls, CloudServerControls {
    associatedtype Storage: DatabaseStorage
    /// The device's account session, which routes every call.
    var session: AccountSession { get }
    /// Runs `body` with the database of `account`, holding whatever lock guards it.
    func withDatabase<T: Sendable>(
        of account: AccountID, _ body: (PrivateDatabase<Storage>) throws(CloudError) -> T
    )
        throws(CloudError) -> T
}

extension StorageBackedContainer {
    /// Runs `body` against the signed-in account's database, or fails as CloudKit does without a usable account.
    private func call<T: Sendable>(
        _ body: (PrivateDatabase<Storage>, AccountID) throws(CloudError) -> T
    ) throws(CloudError) -> T {
        let account = try session.callableAccount()
        return try withDatabase(of: account) { database throws(CloudError) in try body(database, account) }
    }

    public func accountStatus() async -> AccountStatus {
        session.status
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        try session.callableAccount().userRecordID
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        try call { database, _ throws(CloudError) in try database.saveZones(zones) }
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        try call { database, _ throws(CloudError) in try database.deleteZones(zoneIDs, reason: .deleted) }
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        try call { database, _ throws(CloudError) in try database.allZones() }
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try call { database, _ throws(CloudError) in try database.records(for: recordIDs) }
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        try call { database, account throws(CloudError) in
            try database.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically,
                user: account.userRecordID)
        }
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        try call { database, _ throws(CloudError) in
            try database.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        }
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        try call { database, _ throws(CloudError) in
            try database.databaseChanges(since: token, resultsLimit: resultsLimit)
        }
    }

    // The user's actions in Settings act on the signed-in account whatever its status (see
    // `AccountSession.settingsAccount()`): a fault that models one must take effect whenever it is counted.
    public func deleteZoneFromICloudSettings(_ zoneID: ZoneID) async throws(CloudError) {
        try withDatabase(of: try session.settingsAccount()) { database throws(CloudError) in
            try database.deleteZones([zoneID], reason: .purged)
        }
    }

    public func purgeZoneForEncryptedDataReset(_ zoneID: ZoneID) async throws(CloudError) {
        try withDatabase(of: try session.settingsAccount()) { database throws(CloudError) in
            try database.deleteZones([zoneID], reason: .encryptedDataReset)
        }
    }

    // The server acts whatever the device reads of the account's status; the token names the database and the zone,
    // so that a switch of account since reaches no other account's database.
    public func announceChangesBecameVisible(after token: ChangeToken) async throws(CloudError) {
        try withDatabase(of: try session.settingsAccount()) { database throws(CloudError) in
            try database.announceChangesBecameVisible(after: token)
        }
    }
}

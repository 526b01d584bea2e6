public import PrivateCloud
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One account's private database as another client sees it: an older or newer build of the app, another app of
/// the container, or a web client. It writes straight into the container through the container's own semantics
/// (change tags, zones, field types), never by editing files, and meets none of the world's faults.
///
/// The container is schemaless: any record type and field key CloudKit would accept may be written, which is how a
/// test makes a device meet records and fields its schema does not know.
public struct AccountCloud: Sendable {
    /// What a stale edit met and did.
    public struct EditOutcome: Sendable {
        /// The record as saved.
        public let record: Record
        /// For a stale edit: the `serverRecordChanged` (14) the first save met, carrying the server's record.
        public let conflict: CloudError?
    }

    /// The account.
    public let account: AccountID
    /// The container, opened for the account, without faults.
    public let container: any PrivateContainer & ICloudSettingsControls
    /// Reads every record of the database (the default zone's too, which cannot fetch changes).
    private let readRecords: @Sendable () throws -> [Record]
    /// The zone used when none is named: the one the app's sync engine uses.
    public static let defaultZone = ZoneID(uncheckedName: SyncEngine.defaultZoneName)

    /// A client of `account`'s database in `container`.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - container: A container whose session is signed into `account`.
    ///   - readRecords: Reads every record of the database, as ``World/containerRecords(account:)`` does.
    init(
        account: AccountID, container: any PrivateContainer & ICloudSettingsControls,
        readRecords: @escaping @Sendable () throws -> [Record]
    ) {
        self.account = account
        self.container = container
        self.readRecords = readRecords
    }

    /// Creates a record, creating its zone when missing (or deleted by the user), as a client's first save does.
    ///
    /// - Parameters:
    ///   - type: The record type: any CloudKit identifier, declared in the app's schema or not.
    ///   - name: The record's name; a new UUID when `nil`.
    ///   - zone: The zone; the engine's zone when `nil`.
    ///   - fields: Its fields.
    /// - Returns: The record as saved, with its system fields.
    /// - Throws: `CloudError`: `invalidArguments` for a bad name, type, key or value, or a field of another type
    ///   than the record type's earlier values; `serverRecordChanged` (14) when the record exists already;
    ///   `limitExceeded` past CloudKit's limits; `userDeletedZone` for a zone the user deleted.
    @discardableResult
    public func put(
        type: String, name: String? = nil, zone: ZoneID? = nil, fields: [String: FieldValue]
    ) async throws(CloudError) -> Record {
        let zone = zone ?? Self.defaultZone
        var record = try Record(
            recordType: type, recordID: RecordID(recordName: name ?? UUID().uuidString, zoneID: zone))
        for (key, value) in fields { record[key] = value }
        do {
            return try await save(record, policy: .ifServerRecordUnchanged)
        } catch  where !zone.isDefault && (error.code == .zoneNotFound || error.code == .userDeletedZone) {
            // Saved first and the zone created only when missing, so a record the container refuses changes
            // nothing; a client creates a zone the user deleted again, as apps do.
            _ = try await container.saveZones([RecordZone(zoneID: zone)])
            return try await save(record, policy: .ifServerRecordUnchanged)
        }
    }

    /// Changes fields of an existing record.
    ///
    /// A stale edit is based on a change tag the server no longer holds, as a client whose copy predates the
    /// record's last change: it meets `serverRecordChanged` (14), and then saves over the server's record with
    /// `allKeys`, as a client that insists on its version does. The outcome carries the conflict it met.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - zone: Its zone; the engine's zone when `nil`.
    ///   - fields: The fields to set.
    ///   - stale: Whether to edit from an outdated copy.
    /// - Returns: The record as saved and, for a stale edit, the conflict met.
    /// - Throws: `CloudError`: `unknownItem` (11) when there is no such record, `zoneNotFound` or
    ///   `userDeletedZone` for a missing zone, `invalidArguments` for a bad key or value.
    @discardableResult
    public func edit(
        _ name: String, zone: ZoneID? = nil, fields: [String: FieldValue], stale: Bool = false
    ) async throws(CloudError) -> EditOutcome {
        let id = try RecordID(recordName: name, zoneID: zone ?? Self.defaultZone)
        let current = try await container.record(for: id)
        guard stale, let system = current.systemFields else {
            var record = current
            for (key, value) in fields { record[key] = value }
            return EditOutcome(record: try await save(record, policy: .ifServerRecordUnchanged), conflict: nil)
        }
        // A tag the server never handed out for this record's current version: what an outdated copy carries.
        var outdated = Record(
            recordType: current.recordType, recordID: id,
            systemFields: SystemFields(
                changeTag: system.changeTag + "-stale", creationDate: system.creationDate,
                modificationDate: system.modificationDate, creatorUserRecordID: system.creatorUserRecordID,
                lastModifiedUserRecordID: system.lastModifiedUserRecordID))
        for key in current.allKeys { outdated[key] = current[key] }
        for (key, value) in fields { outdated[key] = value }
        do {
            return EditOutcome(record: try await save(outdated, policy: .ifServerRecordUnchanged), conflict: nil)
        } catch  where error.code == .serverRecordChanged {
            return EditOutcome(record: try await save(outdated, policy: .allKeys), conflict: error)
        }
    }

    /// Deletes a record.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - zone: Its zone; the engine's zone when `nil`.
    /// - Throws: `CloudError` `unknownItem` (11) when there is no such record, `zoneNotFound` or
    ///   `userDeletedZone` for a missing zone.
    public func delete(_ name: String, zone: ZoneID? = nil) async throws(CloudError) {
        let id = try RecordID(recordName: name, zoneID: zone ?? Self.defaultZone)
        let result = try await container.modifyRecords(
            saving: [], deleting: [id], savePolicy: .ifServerRecordUnchanged, atomically: true)
        if case .failure(let error)? = result.deleteResults[id] { throw error }
    }

    /// Every record of the database, or of one zone, sorted by zone and name.
    ///
    /// - Parameter zone: Only this zone, or every zone when `nil`.
    /// - Returns: The records.
    /// - Throws: `CloudError` `zoneNotFound` or `userDeletedZone` for a named zone that does not exist;
    ///   `DatabaseFileError` when the account's file is damaged.
    public func records(zone: ZoneID? = nil) async throws -> [Record] {
        if let zone, !zone.isDefault, try await !container.allZones().contains(where: { $0.zoneID == zone }) {
            // The container says which: deleted by the user, or not there.
            _ = try await container.recordZoneChanges(in: zone, since: nil, resultsLimit: 1)
            throw CloudError(.zoneNotFound, "zone \(zone.zoneName) does not exist")
        }
        return try readRecords().filter { zone == nil || $0.recordID.zoneID == zone }
            .sorted { $0.recordID < $1.recordID }
    }

    /// Every zone of the database, the default zone first.
    ///
    /// - Throws: `CloudError` when the database cannot be read.
    public func zones() async throws(CloudError) -> [ZoneID] {
        try await container.allZones().map(\.zoneID)
    }

    /// Deletes a zone and its records, as another client of the container may (database changes report it as
    /// `deleted`; calls on it then fail with `zoneNotFound`).
    ///
    /// - Parameter zone: A custom zone.
    /// - Throws: `CloudError` `zoneNotFound` when there is no such zone, `invalidArguments` for the default zone.
    public func deleteZone(_ zone: ZoneID) async throws(CloudError) {
        try await container.deleteZones([zone])
    }

    /// Saves one record, throwing its per-item error.
    private func save(_ record: Record, policy: SavePolicy) async throws(CloudError) -> Record {
        let result = try await container.modifyRecords(
            saving: [record], deleting: [], savePolicy: policy, atomically: true)
        switch result.saveResults[record.recordID] {
        case .success(let saved)?: return saved
        case .failure(let error)?: throw error
        case nil: throw CloudError(.internalError, "no result for \(record.recordID)")
        }
    }
}

public import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncSQLite

/// The two stores of a device, opened together as SwiftData opens the configurations of one `ModelContainer`.
///
/// CloudKit mirroring is set up for every cloud configuration before any store file is loaded. That order is why
/// the first trap bit: on a genuine first launch the mirrored store's folder is missing, its setup fails with
/// Cocoa error 512, and the container fails whole, even though a local store would have created the folder a
/// moment later.
public struct DeviceStores: Sendable {
    /// The local-only store: local, whatever the sync switch says.
    public let localOnly: RecordStore<LocalOnly>
    /// The user-created store: local or cloud.
    public let userCreated: RecordStore<UserCreated>

    /// Opens both stores.
    ///
    /// - Parameters:
    ///   - localOnly: The local-only configuration (never cloud).
    ///   - userCreated: The user-created configuration.
    ///   - partition: The schema and its partition.
    ///   - deviceID: The device's identifier.
    ///   - clock: Where write times come from.
    ///   - names: Where new record names come from.
    ///   - durability: How much a commit survives.
    ///   - crashSwitch: A simulation's crash switch.
    ///   - verifyIntegrity: Whether to check every page of existing files first.
    ///   - verificationMemo: Where checked states are remembered, to check a file once per change.
    ///   - readOnly: Whether only to read: nothing is created or written.
    ///   - lease: The device's lease on its App Group folder, which both stores keep as long as they live.
    /// - Returns: The stores.
    /// - Throws: ``StoreError``: `invalidConfiguration` for a local-only configuration that mirrors to CloudKit;
    ///   `cannotCreateStore` (wrapping ``CocoaStyleError`` 512) when a cloud configuration's folder is missing,
    ///   before anything is created; or what opening a store throws.
    public static func open(
        localOnly: StoreConfiguration, userCreated: StoreConfiguration, partition: SyncPartition, deviceID: String,
        clock: any WallClock, names: any RecordNameSource, durability: Durability, crashSwitch: CrashSwitch?,
        verifyIntegrity: Bool = false, verificationMemo: VerificationMemo? = nil, readOnly: Bool = false,
        lease: AppGroupLease? = nil
    ) throws(StoreError) -> DeviceStores {
        guard !localOnly.isCloud else {
            throw StoreError(
                .invalidConfiguration,
                "the local-only configuration \(localOnly.name) mirrors to CloudKit; the local-only store never does")
        }
        for configuration in [localOnly, userCreated] where configuration.isCloud {
            if !FileSystem.isDirectory(configuration.directory) {
                let error = CocoaStyleError.failedToCreateFile(configuration.path)
                throw StoreError(.cannotCreateStore, underlying: error)
            }
        }
        let localStore = try RecordStore<LocalOnly>.open(
            localOnly, partition: partition, deviceID: deviceID, clock: clock, names: names, durability: durability,
            crashSwitch: crashSwitch, verifyIntegrity: verifyIntegrity, verificationMemo: verificationMemo,
            readOnly: readOnly, lease: lease)
        let userStore = try RecordStore<UserCreated>.open(
            userCreated, partition: partition, deviceID: deviceID, clock: clock, names: names, durability: durability,
            crashSwitch: crashSwitch, verifyIntegrity: verifyIntegrity, verificationMemo: verificationMemo,
            readOnly: readOnly, lease: lease)
        return DeviceStores(localOnly: localStore, userCreated: userStore)
    }

    /// Adds a record under a name the app chose, which no record in either store may hold.
    ///
    /// The check and the insert are one step against every other chosen-name insert of the device, in this process
    /// or another: each holds the local-only store's write lock from the check to the commit (always that store's
    /// first, then the user-created store's, so that two never wait for each other). Two `record add --name N`,
    /// one per store, at once, once both succeeded.
    ///
    /// - Parameters:
    ///   - type: The record type, with its partition: it picks the store.
    ///   - name: The record's name, already checked as CloudKit checks names.
    ///   - fields: Its fields.
    ///   - account: The iCloud account signed in, if any.
    ///   - body: For a user-created record, more work for its insert's transaction, run first
    ///     (``RecordStore/insert(_:fields:origin:name:alongside:)``); none by default.
    /// - Returns: The record as stored.
    /// - Throws: ``StoreError`` `nameInUse` for a name a record of either store holds, or what the store refuses.
    public func insert(
        _ type: PartitionedType, chosenName name: String, fields: [String: FieldValue],
        writtenUnder account: AccountID?,
        alongside body: (SyncTransaction, String) throws -> Void = { _, _ in }
    ) throws(StoreError) -> StoredRecord {
        let inUse = StoreError(.nameInUse, "a record named \(CloudKitNames.quoted(name)) already exists on this device")
        return try localOnly.write { connection throws -> StoredRecord in
            if try RecordStore<LocalOnly>.holdsRecord(named: name, connection) { throw inUse }
            switch type {
            case .userCreated(let type):
                // The user-created store's own insert checks its store in its transaction.
                return try userCreated.insert(
                    type, fields: fields, origin: account?.userRecordID, name: name, alongside: body)
            case .localOnly(let type):
                if try userCreated.containsRecord(named: name) { throw inUse }
                let record = try localOnly.newRecord(type, fields: fields, origin: account?.userRecordID, name: name)
                try RecordStore<LocalOnly>.insertRow(record, connection)
                return record
            }
        }
    }
}

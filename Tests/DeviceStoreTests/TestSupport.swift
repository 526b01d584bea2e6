import PrivateCloud
import PrivateSyncFileSystem

@testable import DemoSchema
@testable import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A folder under /tmp, removed when released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = try! FileSystem.makeTemporaryDirectory(prefix: "devicestore-test")
    }

    deinit { try? FileSystem.removeItem(path) }
}

let demo = SyncPartition.demoHealth

func userStore(
    in directory: String, cloud: Bool = false, crashSwitch: CrashSwitch? = nil
) throws -> RecordStore<UserCreated> {
    try RecordStore<UserCreated>.open(
        StoreConfiguration(
            name: StoreConfiguration.userCreatedName, directory: directory,
            cloudKitDatabase: cloud ? .private(try ContainerIdentifier("iCloud.com.example.me")) : .none),
        partition: demo, deviceID: "phone", clock: ManualClock(), names: SeededRecordNames(seed: 1),
        durability: .survivesProcessCrash, crashSwitch: crashSwitch)
}

func localStore(in directory: String) throws -> RecordStore<LocalOnly> {
    try RecordStore<LocalOnly>.open(
        StoreConfiguration(name: StoreConfiguration.localOnlyName, directory: directory, cloudKitDatabase: .none),
        partition: demo, deviceID: "phone", clock: ManualClock(), names: SeededRecordNames(seed: 2),
        durability: .survivesProcessCrash)
}

/// A device's two stores, side by side in a temporary folder (removed with the value), as a launch opens them.
struct StorePair {
    let folder = TemporaryDirectory()
    let user: RecordStore<UserCreated>
    let local: RecordStore<LocalOnly>

    init() throws {
        user = try userStore(in: folder.path)
        local = try localStore(in: folder.path)
    }
}

let checkIn: ModelType<UserCreated> = try! demo.userCreatedType("CheckIn")
let baseline: ModelType<LocalOnly> = try! demo.localOnlyType("Baseline")
let someDate = FieldValue.date(Date(timeIntervalSinceReferenceDate: 800_000_000))

/// Runs `body` on a user-created store (``userStore(in:cloud:crashSwitch:)``) in a new temporary folder, given with
/// the folder's path; the folder is removed afterwards.
func withUserStore(_ body: (RecordStore<UserCreated>, _ folder: String) throws -> Void) throws {
    let folder = TemporaryDirectory()
    try body(try userStore(in: folder.path), folder.path)
}

extension RecordStore where Kind == UserCreated {
    /// Inserts a CheckIn of mood `mood` dated ``someDate``, written under no account, named `name` (else by the store).
    @discardableResult
    func insertCheckIn(mood: Int64, name: String? = nil) throws(StoreError) -> StoredRecord {
        try insert(checkIn, fields: ["mood": .int64(mood), "date": someDate], writtenUnder: nil, name: name)
    }
}

import FoundationEssentials
import PrivateCloud
import PrivateSyncFileSystem

@testable import DeviceStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
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

let checkIn: ModelType<UserCreated> = try! demo.userCreatedType("CheckIn")
let baseline: ModelType<LocalOnly> = try! demo.localOnlyType("Baseline")
let someDate = FieldValue.date(Date(timeIntervalSinceReferenceDate: 800_000_000))

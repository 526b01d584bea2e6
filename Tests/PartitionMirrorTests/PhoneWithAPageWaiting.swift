import DeviceStore
import PartitionMirror
import PrivateSyncEngine
import PrivateSyncEngineTesting

/// A phone on a test disk with a page waiting for it on the server (`PartitionMirrorTests.phoneWithAPageWaiting`).
struct PhoneWithAPageWaiting {
    let stores: DeviceStores
    let phone: PartitionMirror
    let disk: DiskSpace
    /// Another client of the phone's account, and the zone it writes in.
    let other: PSDatabase
    let zone: PSRecordZone.ID
    let cloud: SyncEngineTestCloud
    /// The phone's device, to sign it into another account.
    let device: TestDevice

    /// The stores, the mirror and the disk, as most tests take them.
    var parts: (DeviceStores, PartitionMirror, DiskSpace) { (stores, phone, disk) }
}

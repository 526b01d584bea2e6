import PrivateCloud
import Synchronization

/// The zones whose changes a delayed delivery withheld from a device, by device and account: the server's side of a
/// `delayed-delivery` fault.
///
/// A withheld change becomes visible later, and the server's list of changed zones then names its zone again, so
/// that an engine that fetches only the zones the database reports (CKSyncEngine) learns of it. That is the
/// server's state, not the device's: it must outlive one launch of the device (a crash and a relaunch make a new
/// ``FaultInjectingContainer``). Share one of these between every container of a cloud that models relaunches.
public final class WithheldChanges: Sendable {
    private struct Key: Hashable {
        let device: String?
        let account: AccountID?
    }

    private let zones: Mutex<[Key: Set<ZoneID>]> = Mutex([:])

    /// An empty record: nothing withheld.
    public init() {}

    /// Notes that a change of a zone was withheld from a device's fetch.
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - device: The device the change was withheld from.
    ///   - account: The account it fetched under.
    func withhold(_ zoneID: ZoneID, from device: String?, account: AccountID?) {
        zones.withLock { _ = $0[Key(device: device, account: account), default: []].insert(zoneID) }
    }

    /// The zones a device's database-change fetch reports as changed because a change of theirs was withheld from
    /// it: every fetch until the device has read the zone to its end (a device that crashes before it handled the
    /// report gets it again, as it would from the server's list).
    ///
    /// - Parameters:
    ///   - device: The device fetching.
    ///   - account: The account it fetches under.
    /// - Returns: The zones, sorted.
    func zones(device: String?, account: AccountID?) -> [ZoneID] {
        zones.withLock { $0[Key(device: device, account: account)] ?? [] }.sorted()
    }

    /// Notes that a device read a zone's changes to their end, the withheld ones included.
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - device: The device.
    ///   - account: The account it fetched under.
    func readToEnd(_ zoneID: ZoneID, by device: String?, account: AccountID?) {
        zones.withLock { zones in
            let key = Key(device: device, account: account)
            zones[key]?.remove(zoneID)
            if zones[key]?.isEmpty == true { zones[key] = nil }
        }
    }
}

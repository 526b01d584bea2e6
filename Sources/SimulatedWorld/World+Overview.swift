import DeviceStore
public import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem

extension World {
    /// The whole world at a glance, read-only: every device's stores by type, pending changes and status, and every
    /// account's container by type (`privatesync inspect --html`). Nothing is launched or written: each launched
    /// device is resumed as its last launch left it, as `inspect` does.
    ///
    /// - Parameter accounts: Accounts to show besides those on disk and those signed in (the memory backend cannot
    ///   list its accounts).
    /// - Returns: The overview.
    /// - Throws: ``WorldError``, `LaunchError` or `StoreError` when a device or its store cannot be read, and
    ///   what reading a container throws.
    public func overview(accounts: [AccountID] = []) throws -> WorldOverview {
        var known = Set(accounts)
        if FileSystem.isDirectory(cloudRoot) {
            for folder in try FileSystem.contents(ofDirectory: cloudRoot) {
                if let account = try? AccountID(folder) { known.insert(account) }
            }
        }
        func counts(_ byType: [String: Int]) -> [WorldOverview.TypeCount] {
            byType.keys.sorted().filter { byType[$0]! > 0 }.map {
                WorldOverview.TypeCount(
                    type: $0, partition: partition.partition(of: $0)?.rawValue ?? "unknown", count: byType[$0]!)
            }
        }
        var devices: [WorldOverview.Device] = []
        var signedIn: [AccountID: [String]] = [:]
        for name in try deviceNames() {
            let device = try self.device(name)
            if let account = device.session.account {
                known.insert(account)
                signedIn[account, default: []].append(name)
            }
            // Read under the app's lease (no reinstall replaces the files meanwhile), and read-only: the overview
            // writes nothing, and works on a read-only world.
            let lease = try device.leaseAppFiles()
            defer { withExtendedLifetime(lease) {} }
            let launched = try LaunchRecord.load(appGroup: device.appGroup.path) != nil
            var userCreated: [WorldOverview.TypeCount] = []
            var localOnly: [WorldOverview.TypeCount] = []
            var pending = 0
            var status: SyncStatus?
            if launched {
                let app = try resume(name, readOnly: true)
                userCreated = counts(try app.stores.userCreated.countsByType())
                localOnly = counts(try app.stores.localOnly.countsByType())
                pending = try app.stores.userCreated.pendingChangeCount()
                status = try app.status()
            }
            devices.append(
                WorldOverview.Device(
                    name: name, account: device.session.account, accountStatus: device.session.status.name,
                    entitlement: device.entitlements.permits(containerIdentifier),
                    syncPreference: try device.syncPreference(), launched: launched, userCreated: userCreated,
                    localOnly: localOnly, pendingChanges: pending, status: status))
        }
        var accountViews: [WorldOverview.Account] = []
        for account in known.sorted(by: { $0.rawValue < $1.rawValue }) {
            var byType: [String: Int] = [:]
            for record in try containerRecords(account: account) { byType[record.recordType, default: 0] += 1 }
            accountViews.append(
                WorldOverview.Account(account: account, devices: signedIn[account] ?? [], types: counts(byType)))
        }
        return WorldOverview(
            containerIdentifier: containerIdentifier.rawValue, devices: devices, accounts: accountViews)
    }
}

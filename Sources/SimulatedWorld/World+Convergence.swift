import DeviceStore
public import PrivateCloud
public import PrivateSync
import PrivateSyncFileSystem

extension World {
    /// Compares every launched device's user-created records with its account's container: what is missing,
    /// extra or different on each device, and whether a pending change explains it (`audit --convergence`).
    ///
    /// A device is compared with the container of the account its store is bound to (the signed-in account when
    /// it has never synced). A device never launched, or with no account at all, is reported with no account and
    /// nothing compared.
    ///
    /// - Parameter accounts: Accounts that may own a device's data besides those signed in now (the memory backend
    ///   cannot list them; the file backend finds them on disk).
    /// - Returns: One report per device, in name order.
    /// - Throws: ``WorldError``, `LaunchError` or `StoreError` when a device or its store cannot be read, and
    ///   what reading a container throws.
    public func convergenceAudit(accounts: [AccountID] = []) throws -> [ConvergenceReport] {
        var candidates = Set(accounts)
        if FileSystem.isDirectory(cloudRoot) {
            for folder in try FileSystem.contents(ofDirectory: cloudRoot) {
                if let account = try? AccountID(folder) { candidates.insert(account) }
            }
        }
        var reports: [ConvergenceReport] = []
        for name in try deviceNames() {
            let device = try self.device(name)
            if let account = device.session.account { candidates.insert(account) }
            let app: LaunchedApp
            do {
                // Read-only: a comparison writes nothing, and works on a read-only world.
                app = try resume(name, readOnly: true)
            } catch let error as LaunchError where error.code == .neverLaunched {
                reports.append(ConvergenceReport(device: name, account: nil))
                continue
            }
            // The account the data belongs to, as the device's engine keeps it (the app's own, or CKSyncEngine's
            // delegate's: `LaunchedApp.facts()` reads either).
            let bound = try app.facts().boundUser
            let account =
                bound.flatMap { user in candidates.first { $0.userRecordID == user } } ?? device.session.account
            guard let account else {
                reports.append(ConvergenceReport(device: name, account: nil))
                continue
            }
            reports.append(
                try app.convergence(
                    with: try containerRecords(account: account), of: account.userRecordID, account: account))
        }
        return reports
    }
}

public import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncJSON
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A simulated device with the app installed: its folder on disk, its iCloud sign-in, the installed build's
/// entitlements, and the app's preferences.
///
/// Everything lives on disk under the device's folder, so a later process (every CLI command is one, as every app
/// launch is) sees what an earlier one did:
///
/// ```
/// <device>/device.json                                  the OS's view: account, status, installed build
/// <device>/AppGroup/Library/Caches
/// <device>/AppGroup/Library/Preferences/preferences.json the app's settings (the sync switch)
/// <device>/AppGroup/Library/Application Support/        the stores; absent on a fresh install
/// ```
public final class SimulatedDevice: Sendable {
    /// The device's folder.
    public let root: String
    /// The device's iCloud session, which every container call of this device is routed by.
    public let session: AccountSession
    private let profileState: Mutex<DeviceProfile>

    private init(root: String, profile: DeviceProfile) {
        self.root = root
        self.profileState = Mutex(profile)
        self.session = AccountSession(account: profile.accountID, status: profile.status)
    }

    /// The device's name.
    public var name: String { profile.name }
    /// What the OS knows of the device.
    public var profile: DeviceProfile { profileState.withLock { $0 } }
    /// The app's App Group container.
    public var appGroup: AppGroupContainer { AppGroupContainer(path: root + "/AppGroup") }
    /// The installed build's entitlements.
    public var entitlements: Entitlements { profile.build.entitlements }

    private var profilePath: String { root + "/device.json" }
    private var preferencesPath: String { appGroup.preferences + "/preferences.json" }

    // MARK: Installing

    /// Installs the app on a new device: a fresh App Group folder, with no `Library/Application Support`.
    ///
    /// - Parameters:
    ///   - root: The device's folder; it must not exist.
    ///   - name: The device's name.
    ///   - account: The iCloud account signed in, if any.
    ///   - build: The app build, with or without the CloudKit entitlement.
    ///   - syncPreference: The sync switch as restored from a backup, or `nil` for never set (off).
    /// - Returns: The device.
    /// - Throws: ``DeviceError`` when the name is invalid, the device exists, or the files cannot be written.
    public static func install(
        at root: String, name: String, account: AccountID?, build: DeviceProfile.AppBuild, syncPreference: Bool?
    ) throws(DeviceError) -> SimulatedDevice {
        do {
            try DeviceName.validate(name)
        } catch {
            throw DeviceError(.invalidName, underlying: error)
        }
        guard !FileSystem.exists(root) else {
            throw DeviceError(.alreadyExists, "device \(name) already exists at \(root)")
        }
        let profile = DeviceProfile(
            name: name, account: account?.rawValue,
            accountStatus: (account == nil ? AccountStatus.noAccount : .available).name,
            build: build)
        let device = SimulatedDevice(root: root, profile: profile)
        do {
            // Made only if new: of two `device add` of one name at once, one installs and the other is refused
            // (and removes nothing of the first's).
            try FileSystem.createDirectory(FileSystem.parentDirectory(of: root), permissions: 0o700)
            try FileSystem.createNewDirectory(root, permissions: 0o700)
        } catch  where error.isAlreadyExisting {
            throw DeviceError(.alreadyExists, "device \(name) already exists at \(root)")
        } catch {
            throw DeviceError(.fileSystem, "cannot install on device \(name)", underlying: error)
        }
        do {
            try device.appGroup.resetToFreshInstall()
            try device.saveProfile(profile)
            if let syncPreference { try device.writePreferences(AppPreferences(syncEnabled: syncPreference)) }
        } catch {
            try? FileSystem.removeItem(root)
            throw DeviceError(.fileSystem, "cannot install on device \(name)", underlying: error)
        }
        return device
    }

    /// Opens a device installed earlier.
    ///
    /// - Parameter root: The device's folder.
    /// - Returns: The device.
    /// - Throws: ``DeviceError`` `notFound` or `damaged`.
    public static func open(at root: String) throws(DeviceError) -> SimulatedDevice {
        let path = root + "/device.json"
        guard FileSystem.exists(path) else { throw DeviceError(.notFound, "no device at \(root)") }
        do {
            let profile = try DeviceProfile.read(json: try FileSystem.read(path))
            return SimulatedDevice(root: root, profile: profile)
        } catch {
            throw DeviceError(.damaged, "\(path) cannot be read (it was left unchanged)", underlying: error)
        }
    }

    /// Reinstalls the app: the App Group folder goes back to a fresh install (stores and preferences gone).
    ///
    /// As iOS ends a running app before it reinstalls it, this waits until no instance of the app runs: every
    /// process that has the device's stores open holds an `AppGroupLease`, and the folder is emptied only under
    /// the exclusive lock, so no store is ever deleted under an open connection.
    ///
    /// - Parameter syncPreference: The sync switch as restored from a backup, or `nil` for never set.
    /// - Throws: ``DeviceError`` `appRunning` when this process itself still holds a lease on the device (it would
    ///   wait for itself), or `fileSystem` when the folder cannot be reset.
    public func reinstall(syncPreference: Bool?) throws(DeviceError) {
        guard !AppGroupLease.isHeldInThisProcess(appGroup.path) else {
            throw DeviceError(
                .appRunning,
                "the app on device \(name) is still open in this process; release it (every LaunchedApp and store "
                    + "of it) before reinstalling, as iOS ends an app before reinstalling it")
        }
        do {
            // A folder that is gone (removed by hand) has no lease on it to wait for.
            let lock = FileSystem.isDirectory(appGroup.path) ? try FileLock.exclusive(appGroup.path) : nil
            defer { lock?.unlock() }
            try appGroup.resetToFreshInstall()
            if let syncPreference { try writePreferences(AppPreferences(syncEnabled: syncPreference)) }
        } catch {
            throw DeviceError(.fileSystem, "cannot reinstall on device \(name)", underlying: error)
        }
    }

    /// Takes a lease on the app's files for an instance of the app about to use them (a launch, a command acting
    /// within a launch, a read of its stores), waiting while a reinstall replaces them.
    ///
    /// - Returns: The lease; keep it as long as any store of the device is open.
    /// - Throws: ``DeviceError`` `fileSystem` when the App Group folder cannot be opened or locked.
    public func leaseAppFiles() throws(DeviceError) -> AppGroupLease {
        do {
            return try appGroup.lease()
        } catch {
            throw DeviceError(.fileSystem, "cannot open the app's folder on device \(name)", underlying: error)
        }
    }

    /// Upgrades the app to another build, keeping its folder and data.
    ///
    /// - Parameter build: The new build.
    /// - Throws: ``DeviceError`` when the profile cannot be written.
    public func upgrade(to build: DeviceProfile.AppBuild) throws(DeviceError) {
        try updateProfile { $0.build = build }
    }

    /// Upgrades the app to the build `next` makes of the installed one, read under the profile's lock, so that a
    /// version number is never reused by two racing upgrades and no other change to the profile is lost.
    ///
    /// - Parameter next: Makes the new build from the installed one.
    /// - Returns: The new build.
    /// - Throws: ``DeviceError`` when the profile cannot be read or written.
    @discardableResult
    public func upgrade(
        _ next: (DeviceProfile.AppBuild) -> DeviceProfile.AppBuild
    ) throws(DeviceError) -> DeviceProfile.AppBuild {
        try updateProfile { $0.build = next($0.build) }.build
    }

    // MARK: The iCloud account

    /// Signs into `account` (switching if another was signed in), with status `available`.
    public func signIn(_ account: AccountID) throws(DeviceError) {
        try updateProfile {
            $0.account = account.rawValue
            $0.accountStatus = AccountStatus.available.name
        }
    }

    /// Signs out of iCloud.
    public func signOut() throws(DeviceError) {
        try updateProfile {
            $0.account = nil
            $0.accountStatus = AccountStatus.noAccount.name
        }
    }

    /// Sets the account status of the signed-in account.
    ///
    /// - Throws: ``DeviceError`` `noAccount` when, read under the profile's lock, no account is signed in (another
    ///   process signed out meanwhile); the profile is then unchanged.
    public func setAccountStatus(_ status: AccountStatus) throws(DeviceError) {
        try updateProfile { profile throws(DeviceError) in
            guard profile.account != nil else {
                throw DeviceError(.noAccount, "\(profile.name) has no iCloud account signed in; sign in first")
            }
            profile.accountStatus = status.name
        }
    }

    /// Changes the profile read-modify-write under the lock of the device's folder: the profile is read from disk
    /// after the lock is taken, so a change another process made since this handle opened the device is kept.
    ///
    /// - Parameter change: The change, applied to the profile as it is on disk now.
    /// - Returns: The profile as written.
    /// - Throws: ``DeviceError``: `damaged` when the profile on disk cannot be read, `fileSystem` when it cannot be
    ///   written, or what `change` throws; the file is then unchanged.
    @discardableResult
    private func updateProfile(
        _ change: (inout DeviceProfile) throws(DeviceError) -> Void
    ) throws(DeviceError) -> DeviceProfile {
        var updated: DeviceProfile?
        do {
            try FileSystem.update(profilePath) { bytes in
                var profile: DeviceProfile
                do {
                    profile = try DeviceProfile.read(json: bytes)
                } catch {
                    throw DeviceError(
                        .damaged, "\(self.profilePath) cannot be read (it was left unchanged)", underlying: error)
                }
                try change(&profile)
                updated = profile
                return try JSONFileWriter.bytes(of: profile)
            }
        } catch let error as DeviceError {
            throw error
        } catch {
            throw DeviceError(.fileSystem, "cannot update device \(name)", underlying: error)
        }
        guard let updated else { throw DeviceError(.fileSystem, "cannot update device \(name)") }
        profileState.withLock { $0 = updated }
        session.adopt(account: updated.accountID, status: updated.status)
        return updated
    }

    private func saveProfile(_ profile: DeviceProfile) throws {
        try FileSystem.writeAtomically(JSONFileWriter.bytes(of: profile), to: profilePath)
    }

    // MARK: The app's preferences

    /// The sync switch: `true` when the user asked for sync. Never set reads as off.
    ///
    /// - Throws: ``DeviceError`` `damaged` when the preferences file cannot be read.
    public func syncPreference() throws(DeviceError) -> Bool {
        guard FileSystem.exists(preferencesPath) else { return false }
        do {
            return try AppPreferences.read(json: try FileSystem.read(preferencesPath)).syncEnabled
        } catch {
            throw DeviceError(.damaged, "\(preferencesPath) cannot be read (it was left unchanged)", underlying: error)
        }
    }

    /// Sets the sync switch.
    ///
    /// - Throws: ``DeviceError`` when the preferences cannot be written.
    public func setSyncPreference(_ enabled: Bool) throws(DeviceError) {
        do {
            try writePreferences(AppPreferences(syncEnabled: enabled))
        } catch {
            throw DeviceError(.fileSystem, "cannot save the sync setting on device \(name)", underlying: error)
        }
    }

    private func writePreferences(_ preferences: AppPreferences) throws {
        try FileSystem.writeAtomically(JSONFileWriter.bytes(of: preferences), to: preferencesPath)
    }
}

/// The app's own settings, as it would keep them in `UserDefaults`.
struct AppPreferences: Encodable, JSONFile, Sendable {
    var syncEnabled: Bool

    /// Reads the preferences as `JSONEncoder` wrote them.
    static func read(_ reader: inout JSONReader) throws(JSONReadError) -> AppPreferences {
        // A placeholder, replaced: the key is required, and `object` refuses an object without it.
        var preferences = AppPreferences(syncEnabled: false)
        let keys = ["syncEnabled"]
        try reader.object(at: "the top level", keys: keys, required: keys) { _, reader throws(JSONReadError) in
            preferences.syncEnabled = try reader.bool(at: "syncEnabled")
        }
        return preferences
    }
}

import PrivateSyncFileSystem

/// The App Group container folder of an app on a device, laid out as iOS lays it out.
///
/// A fresh install holds only `Library`, `Library/Caches` and `Library/Preferences`. `Library/Application Support`,
/// where SwiftData puts its stores by default, does not exist until something creates it: on a genuine first
/// launch it is missing, which is the first trap.
public struct AppGroupContainer: Sendable, Hashable {
    /// The container folder.
    public let path: String

    /// A container at `path`.
    public init(path: String) {
        self.path = path
    }

    /// `Library`.
    public var library: String { path + "/Library" }
    /// `Library/Caches`.
    public var caches: String { library + "/Caches" }
    /// `Library/Preferences`.
    public var preferences: String { library + "/Preferences" }
    /// `Library/Application Support`: the default store folder, absent on a fresh install.
    public var applicationSupport: String { library + "/Application Support" }

    /// `Library/Application Support/Archives`: where starting afresh for another account keeps the first account's
    /// records.
    public var archives: String { applicationSupport + "/Archives" }

    /// Whether `Library/Application Support` exists.
    public var hasApplicationSupport: Bool { FileSystem.isDirectory(applicationSupport) }

    /// The prefix of the folder a reinstall moves the old `Library` into before it removes it.
    static let reinstallLeftoverPrefix = ".reinstalling-"

    /// Lays out a fresh install, wiping whatever the app left there before (a reinstall).
    ///
    /// Crash-safe: the old `Library` is first renamed, whole, out of the way (one atomic step: its stores and their
    /// `-wal` and `-shm` move together, so no log is ever left beside a missing store, where the next store made
    /// there would replay it), a fresh `Library` is laid out, and only then is the old one removed. A crash leaves
    /// either the old install, or a fresh one with the old `Library` still to remove, or no `Library` yet, which
    /// ``completeInterruptedReinstall()`` (run by every launch) finishes. The folder itself stays, so that every
    /// `AppGroupLease` and every reinstall lock the same folder (see ``SimulatedDevice/reinstall(syncPreference:)``,
    /// which calls this under the exclusive lock).
    ///
    /// - Throws: `FileSystemError` when a folder cannot be renamed, removed or created.
    public func resetToFreshInstall() throws(FileSystemError) {
        if !FileSystem.isDirectory(path) {
            try FileSystem.removeItem(path)
            try FileSystem.createDirectory(path, permissions: 0o700, intermediate: false)
            FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
        }
        for name in try FileSystem.contents(ofDirectory: path) where !name.hasPrefix(Self.reinstallLeftoverPrefix) {
            // A leftover of an interrupted reinstall can bear the name (a dead process's identifier is reused, and
            // rename would fail on it, or replace it): the next name is taken. Under the exclusive lock, so no race.
            var aside: String
            repeat {
                aside = path + "/" + FileSystem.uniqueName(Self.reinstallLeftoverPrefix)
            } while FileSystem.exists(aside)
            try FileSystem.move(path + "/" + name, to: aside)
        }
        try completeInterruptedReinstall()
    }

    /// Finishes a reinstall a crash interrupted: lays out `Library`, `Library/Caches` and `Library/Preferences` where
    /// they are missing, and removes what the reinstall moved aside. Nothing of a sound install is touched.
    ///
    /// Called under a lease or the exclusive lock: no reinstall runs meanwhile, so what is moved aside is no one's.
    ///
    /// - Throws: `FileSystemError` when a folder cannot be created or removed.
    public func completeInterruptedReinstall() throws(FileSystemError) {
        var created = false
        for folder in [library, caches, preferences] where !FileSystem.isDirectory(folder) {
            try FileSystem.createDirectory(folder, permissions: 0o700, intermediate: false)
            created = true
        }
        if created { FileSystem.syncDirectory(path) }
        for name in try FileSystem.contents(ofDirectory: path) where name.hasPrefix(Self.reinstallLeftoverPrefix) {
            try FileSystem.removeItem(path + "/" + name)
        }
    }

    /// Takes a lease on the folder for an instance of the app (or a reader of its stores), waiting while a reinstall
    /// replaces its files (see `AppGroupLease`).
    ///
    /// - Returns: The lease; keep it as long as any database file in the folder is open.
    /// - Throws: `FileSystemError` when the folder cannot be opened or locked.
    public func lease() throws(FileSystemError) -> AppGroupLease {
        try AppGroupLease.take(on: path)
    }

    /// Creates `Library/Application Support` synchronously: the first trap's fix.
    ///
    /// - Throws: `FileSystemError` when it cannot be created.
    public func createApplicationSupport() throws(FileSystemError) {
        try FileSystem.createDirectory(applicationSupport, permissions: 0o700, intermediate: false)
        FileSystem.syncDirectory(library)
    }
}

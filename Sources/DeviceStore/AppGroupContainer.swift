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

    /// Lays out a fresh install, wiping whatever the app left there before (a reinstall).
    ///
    /// - Throws: `FileSystemError` when a folder cannot be removed or created.
    public func resetToFreshInstall() throws(FileSystemError) {
        try FileSystem.removeItem(path)
        for folder in [path, library, caches, preferences] {
            try FileSystem.createDirectory(folder, permissions: 0o700, intermediate: false)
        }
        FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
    }

    /// Creates `Library/Application Support` synchronously: the first trap's fix.
    ///
    /// - Throws: `FileSystemError` when it cannot be created.
    public func createApplicationSupport() throws(FileSystemError) {
        try FileSystem.createDirectory(applicationSupport, permissions: 0o700, intermediate: false)
        FileSystem.syncDirectory(library)
    }
}

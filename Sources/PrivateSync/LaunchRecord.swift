import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncJSON

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the last launch (or reconfiguration) of the app on a device did: the facts the status is derived from,
/// and the steps it took. Kept in the App Group's `Library/Preferences/last-launch.json`, so a reinstall forgets
/// it, as it forgets everything the app kept.
public struct LaunchRecord: Encodable, Sendable, Hashable {
    /// How the user-created store was opened.
    public enum StoreMode: String, Encodable, Sendable, Hashable {
        /// Cloud-configured: its changes sync.
        case cloud
        /// Local: nothing syncs (sync is off, or the launch fell back).
        case local
    }

    /// When the launch happened.
    public var launchedAt: Date
    /// Whether the user had asked for sync.
    public var syncWanted: Bool
    /// How the user-created store was opened.
    public var userCreatedStore: StoreMode
    /// The container the app syncs with.
    public var containerIdentifier: String
    /// Why the launch fell back to a local store, if it did.
    public var fallbackReason: PauseReason?
    /// The error behind the fallback, in words (for example Cocoa error 512).
    public var fallbackDetail: String?
    /// Whether the first trap's fix was skipped.
    public var skippedDirectoryFix: Bool
    /// Whether the second trap's fix was skipped.
    public var skippedEntitlementCheck: Bool
    /// The launch sequence, step by step.
    public var steps: [LaunchStep]

    static func path(in appGroup: String) -> String {
        appGroup + "/Library/Preferences/last-launch.json"
    }

    /// Reads the last launch of the app in `appGroup`, or `nil` when it never launched (since installation).
    ///
    /// - Throws: ``LaunchError`` when the record exists but cannot be read.
    public static func load(appGroup: String) throws(LaunchError) -> LaunchRecord? {
        let path = path(in: appGroup)
        guard FileSystem.exists(path) else { return nil }
        do {
            return try read(json: try FileSystem.read(path))
        } catch {
            throw LaunchError(.damagedFile, "\(path) cannot be read (it was left unchanged)", underlying: error)
        }
    }

    func save(appGroup: String) throws(LaunchError) {
        do {
            try FileSystem.writeAtomically(try JSONFileWriter.bytes(of: self), to: Self.path(in: appGroup))
        } catch {
            throw LaunchError(.fileSystem, "cannot record the launch", underlying: error)
        }
    }
}

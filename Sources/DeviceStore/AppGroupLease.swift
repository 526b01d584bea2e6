import PrivateSyncFileSystem
import Synchronization

/// A running instance of the app's hold on its App Group folder: while any lease is held, in this process or
/// another, nothing deletes or replaces the files in it (a reinstall waits for every lease to end).
///
/// SQLite must never have a database file, its `-wal` or its `-shm` deleted under an open connection: the
/// connection's writes go on into a file no one will read, and its closing deletes the `-wal` and `-shm` *by name*,
/// which by then may belong to the new store of the next launch (<https://www.sqlite.org/howtocorrupt.html>, 2.4).
/// On iOS a reinstall first ends the running app; here the "app" is every process (and every object in this
/// process) that has the device's stores open, so each holds a lease, a shared `flock` on the App Group folder, and
/// a reinstall takes it exclusively. The folder itself is never removed (a reinstall empties it), so every lease
/// and every reinstall lock the same folder.
///
/// The kernel drops a lease when its process dies, so a killed command never blocks a reinstall.
public final class AppGroupLease: Sendable {
    /// The App Group folder held.
    public let path: String
    private let lock: FileLock

    /// How many leases this process holds, by App Group folder: a reinstall from this process while one of its own
    /// leases is held would wait for itself forever, so it is refused instead.
    private static let heldHere = Mutex<[String: Int]>([:])

    private init(path: String, lock: FileLock) {
        self.path = path
        self.lock = lock
        Self.heldHere.withLock { $0[path, default: 0] += 1 }
    }

    deinit {
        lock.unlock()
        Self.heldHere.withLock { held in
            held[path, default: 1] -= 1
            if held[path] == 0 { held[path] = nil }
        }
    }

    /// Takes a lease on `appGroup`, waiting while a reinstall holds it.
    ///
    /// - Parameter appGroup: The App Group folder.
    /// - Returns: The lease; it ends when the last reference to it goes.
    /// - Throws: `FileSystemError` when the folder cannot be opened or locked.
    package static func take(on appGroup: String) throws(FileSystemError) -> AppGroupLease {
        AppGroupLease(path: appGroup, lock: try FileLock.shared(appGroup))
    }

    /// Whether this process holds a lease on `appGroup`.
    package static func isHeldInThisProcess(_ appGroup: String) -> Bool {
        heldHere.withLock { $0[appGroup] != nil }
    }
}

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An advisory lock (`flock`) on a folder: exclusive, held while a file in it is read, changed and written back, so
/// that two processes changing the same file one after the other each see the other's change (no lost update); or
/// shared, held by each of many users of a folder's files while one that replaces them waits for the exclusive lock.
///
/// The lock is taken on the folder itself rather than on a lock file beside the data, so that locking creates no
/// file in the world and works on a folder the process may not write to. `flock` locks belong to the open file
/// description, not to the process (unlike SQLite's POSIX locks): a second ``FileLock`` on the same folder, even in
/// the same process, waits for (or, when not waiting, fails against) a conflicting first one; the kernel drops the
/// lock when the process dies, so a killed command never leaves a folder locked.
package final class FileLock: Sendable {
    /// The locked folder.
    package let path: String
    /// The folder's open descriptor, which holds the lock; `-1` once released.
    private let descriptor: Mutex<Int32>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    deinit { unlock() }

    /// Locks `folder` exclusively.
    ///
    /// - Parameters:
    ///   - folder: The folder to lock; it is opened without following a final symbolic link.
    ///   - wait: Whether to wait for another holder; when `false`, a held lock fails at once with `EWOULDBLOCK`.
    /// - Returns: The held lock; it is released by ``unlock()`` or when the lock is deinitialized.
    /// - Throws: ``FileSystemError`` when the folder cannot be opened or locked.
    package static func exclusive(_ folder: String, wait: Bool = true) throws(FileSystemError) -> FileLock {
        try lock(folder, LOCK_EX, wait: wait)
    }

    /// Locks `folder` exclusively, waiting for another holder at most `milliseconds`.
    ///
    /// The lock is tried again as SQLite's busy handler tries a database's: after 1 ms, then twice as long each time,
    /// at most 25 ms apart, until the wait is spent; so that a holder that hangs (a stuck command, a debugger's
    /// breakpoint) makes the caller fail as busy rather than wait for ever.
    ///
    /// - Parameters:
    ///   - folder: The folder to lock; it is opened without following a final symbolic link.
    ///   - milliseconds: The longest wait; `0` tries once.
    /// - Returns: The held lock; it is released by ``unlock()`` or when the lock is deinitialized.
    /// - Throws: ``FileSystemError`` when the folder cannot be opened or locked; one whose
    ///   ``FileSystemError/isLockHeld`` is `true` when another holder kept it past the wait.
    package static func exclusive(
        _ folder: String, waitingAtMost milliseconds: Int32
    ) throws(FileSystemError)
        -> FileLock
    {
        var waited: Int32 = 0
        var delay: Int32 = 1
        while true {
            do {
                return try lock(folder, LOCK_EX, wait: false)
            } catch  where error.isLockHeld && waited < milliseconds {
                let step = min(delay, milliseconds - waited)
                var pause = timespec(tv_sec: 0, tv_nsec: Int(step) * 1_000_000)
                var left = timespec()
                // An interrupted sleep goes on for what it had left.
                while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
                waited += step
                delay = min(delay * 2, 25)
            }
        }
    }

    /// Locks `folder` exclusively if no one holds it, without waiting.
    ///
    /// - Parameter folder: The folder to lock; it is opened without following a final symbolic link.
    /// - Returns: The held lock, or `nil` when another holder (in this process or another) has it.
    /// - Throws: ``FileSystemError`` when the folder cannot be opened or locked for another reason.
    package static func exclusiveIfFree(_ folder: String) throws(FileSystemError) -> FileLock? {
        do {
            return try lock(folder, LOCK_EX, wait: false)
        } catch  where error.isLockHeld {
            return nil
        }
    }

    /// Locks `folder` shared: any number of shared holders at once, none while an exclusive one holds it.
    ///
    /// - Parameters:
    ///   - folder: The folder to lock; it is opened without following a final symbolic link.
    ///   - wait: Whether to wait for an exclusive holder; when `false`, a held lock fails at once with `EWOULDBLOCK`.
    /// - Returns: The held lock; it is released by ``unlock()`` or when the lock is deinitialized.
    /// - Throws: ``FileSystemError`` when the folder cannot be opened or locked.
    package static func shared(_ folder: String, wait: Bool = true) throws(FileSystemError) -> FileLock {
        try lock(folder, LOCK_SH, wait: wait)
    }

    private static func lock(_ folder: String, _ operation: Int32, wait: Bool) throws(FileSystemError) -> FileLock {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open (to lock)", path: folder, errno: errno) }
        while flock(fd, operation | (wait ? 0 : LOCK_NB)) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            throw FileSystemError(operation: "flock", path: folder, errno: code)
        }
        return FileLock(path: folder, descriptor: fd)
    }

    /// Releases the lock; releasing twice does nothing.
    package func unlock() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }
}

extension FileSystem {
    /// Changes a file read-modify-write under an exclusive lock on its folder: the file is read after the lock is
    /// taken, `change` maps its bytes to the new bytes, and they are written atomically before the lock is released.
    /// Two processes updating the same file this way are serialized, so neither change is lost.
    ///
    /// - Parameters:
    ///   - path: The file; it must exist.
    ///   - permissions: The new file's permission bits.
    ///   - change: Maps the current bytes to the new bytes, or throws to leave the file unchanged.
    /// - Returns: The bytes written.
    /// - Throws: ``FileSystemError`` when the file cannot be locked, read or written; or what `change` throws (the
    ///   file is then unchanged).
    @discardableResult
    package static func update(
        _ path: String, permissions: Int = 0o600, _ change: ([UInt8]) throws -> [UInt8]
    ) throws -> [UInt8] {
        let lock = try FileLock.exclusive(parentDirectory(of: path))
        defer { lock.unlock() }
        let bytes = try change(try read(path))
        try writeAtomically(bytes, to: path, permissions: permissions)
        return bytes
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An error that can say whether it was transient storage trouble rather than damage: the disk full, or a file
/// locked by another connection past the wait.
///
/// Both pass by themselves (the user frees space; the other command finishes) and say nothing about any file, so
/// every layer reports them apart from damage: a container on a full disk once read as "cannot be read; repair it",
/// a sync that could not write for want of space paused as if its container were broken, and under contention a
/// healthy file that could not be locked in time was called damaged (74).
package protocol StorageFailureReporting {
    /// Whether the failure was the disk (or the user's quota) being full.
    var isDiskFull: Bool { get }
    /// Whether the failure was a lock another connection held for longer than the wait.
    var isBusy: Bool { get }
}

extension StorageFailureReporting {
    /// Most failures of the file system are never a lock: only SQLite's are.
    package var isBusy: Bool { false }
}

/// Whether `error`, or an error it wraps, was the disk being full.
///
/// - Parameter error: Any error.
/// - Returns: `true` when some layer of it reports a full disk.
package func isDiskFull(_ error: any Error) -> Bool {
    (error as? any StorageFailureReporting)?.isDiskFull ?? false
}

/// Whether `error`, or an error it wraps, was a lock held by another connection past the wait.
///
/// - Parameter error: Any error.
/// - Returns: `true` when some layer of it reports a busy file.
package func isBusy(_ error: any Error) -> Bool {
    (error as? any StorageFailureReporting)?.isBusy ?? false
}

/// Whether `code` is an `errno` of a full disk: no space (`ENOSPC`), or the quota spent (`EDQUOT`).
package func isDiskFullErrno(_ code: Int32) -> Bool {
    code == ENOSPC || code == EDQUOT
}

extension FileSystemError: StorageFailureReporting {
    package var isDiskFull: Bool { isDiskFullErrno(errno) }
    package var isBusy: Bool { isLockHeld }
}

extension CodedError: StorageFailureReporting {
    package var isDiskFull: Bool { underlying.map(PrivateSyncFileSystem.isDiskFull) ?? false }
    package var isBusy: Bool { underlying.map(PrivateSyncFileSystem.isBusy) ?? false }
}

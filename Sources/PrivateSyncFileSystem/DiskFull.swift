#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An error that can say whether the disk was full when it happened.
///
/// A full disk is transient (the user frees space and it passes) and says nothing about any file, so every layer
/// reports it apart from damage: a container on a full disk once read as "cannot be read; repair it", and a sync
/// that could not write for want of space paused as if its container were broken.
package protocol DiskFullReporting {
    /// Whether the failure was the disk (or the user's quota) being full.
    var isDiskFull: Bool { get }
}

/// Whether `error`, or an error it wraps, was the disk being full.
///
/// - Parameter error: Any error.
/// - Returns: `true` when some layer of it reports a full disk.
package func isDiskFull(_ error: any Error) -> Bool {
    (error as? any DiskFullReporting)?.isDiskFull ?? false
}

/// Whether `code` is an `errno` of a full disk: no space (`ENOSPC`), or the quota spent (`EDQUOT`).
package func isDiskFullErrno(_ code: Int32) -> Bool {
    code == ENOSPC || code == EDQUOT
}

extension FileSystemError: DiskFullReporting {
    package var isDiskFull: Bool { isDiskFullErrno(errno) }
}

extension CodedError: DiskFullReporting {
    package var isDiskFull: Bool { underlying.map(PrivateSyncFileSystem.isDiskFull) ?? false }
}

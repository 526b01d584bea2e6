#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed file-system call: which operation, on which path, and the `errno` it set.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation, such as `mkdir` or `rename`.
    public let operation: String
    /// The path it acted on.
    public let path: String
    /// The `errno` value.
    public let errno: Int32
    /// What is wrong, in words, when `errno` alone would not say it (such as a symbolic link found in a world).
    public let reason: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - path: The path.
    ///   - errno: The `errno` value.
    ///   - reason: What is wrong, in words, when `errno` alone would not say it.
    public init(operation: String, path: String, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    /// The failure of a write of `path` for want of space (`ENOSPC`), as a simulation's full disk reports it.
    ///
    /// - Parameter path: The file not written.
    /// - Returns: The error.
    package static func diskFull(writing path: String) -> FileSystemError {
        FileSystemError(operation: "write", path: path, errno: ENOSPC)
    }

    /// Whether the path did not exist.
    public var isNotFound: Bool { errno == ENOENT }

    /// Whether the call failed because something already exists at the path (`EEXIST`).
    public var isAlreadyExisting: Bool { errno == EEXIST }

    /// Whether a lock (`flock`) that was not to wait found another holder (`EWOULDBLOCK`).
    public var isLockHeld: Bool { operation == "flock" && errno == EWOULDBLOCK }

    public var description: String {
        if isLockHeld { return "\(path) is locked by another holder" }
        if let reason { return "\(path) \(reason)" }
        return "\(operation) failed for \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

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

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - path: The path.
    ///   - errno: The `errno` value.
    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// Whether the path did not exist.
    public var isNotFound: Bool { errno == ENOENT }

    public var description: String {
        "\(operation) failed for \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

import PrivateSyncFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file named on the command line, never more than a limit: `/dev/zero`, a FIFO that never ends or a huge
/// file is refused after `limit + 1` bytes, in that much memory, instead of being read whole first.
enum BoundedFileRead {
    /// Why a file could not be read.
    struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        enum Code: Sendable {
            /// Nothing is at the path.
            case notFound
            /// The path names a folder.
            case isFolder
            /// The file holds more than the limit.
            case tooLarge
            /// The file could not be opened or read.
            case unreadable
        }
        let code: Code
        /// What the system said, for ``Code/unreadable``.
        let reason: String

        var description: String { reason }
    }

    /// Reads at most `limit` bytes of a file.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes the caller accepts.
    /// - Returns: The file's bytes, at most `limit` of them.
    /// - Throws: ``Failure``: `tooLarge` as soon as byte `limit + 1` is read; `notFound`, `isFolder`, `unreadable`.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            throw Failure(code: code == ENOENT || code == ENOTDIR ? .notFound : .unreadable, reason: describe(code))
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw Failure(code: .isFolder, reason: "it is a folder")
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno == EISDIR ? .isFolder : .unreadable, reason: describe(errno))
            }
            count += got
        }
        guard count <= limit else { throw Failure(code: .tooLarge, reason: "it holds more than \(limit) bytes") }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Reads at most `limit` bytes of a file named on the command line, refusing with the CLI's exit code for each
    /// failure: 66 when nothing is there, 65 for a folder or a file too large, 74 for one that cannot be read.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes the caller accepts.
    ///   - refusal: Words the refusal, given its code and what the system said (for ``Failure/Code/unreadable``).
    /// - Returns: The file's bytes, at most `limit` of them.
    /// - Throws: ``CLIError`` in the words of `refusal`.
    static func read(
        _ path: String, limit: Int, refusal: (Failure.Code, _ reason: String) -> String
    ) throws(CLIError) -> [UInt8] {
        do {
            return try read(path, limit: limit)
        } catch {
            let exit: ExitCode =
                switch error.code {
                case .notFound: .noInput
                case .isFolder, .tooLarge: .dataError
                case .unreadable: .ioError
                }
            throw CLIError(exit, refusal(error.code, error.reason))
        }
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `read(2)`, named apart from ``BoundedFileRead/read(_:limit:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

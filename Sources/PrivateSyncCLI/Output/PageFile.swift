import PrivateSyncFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the CLI writes an HTML page (`inspect --html`, `simulate --timeline`): checked first, then written.
///
/// A regular file (or a new one) is replaced atomically, so a refused or failed write leaves nothing behind. Anything
/// else is never replaced: `-` is standard output; a character device or a FIFO (`/dev/stdout`, a pipe, `/dev/null`)
/// is written through, as `cat >` would, and keeps its node (once, run as root, `--html /dev/full` renamed an HTML
/// file over the machine's `/dev/full`); a symbolic link to a regular file has the file it names replaced, the link
/// kept; a socket or a block device is refused.
enum PageFile {
    /// What a path names, as a page is written to it.
    enum Target: Equatable {
        /// `-`: standard output.
        case standardOutput
        /// A regular file, or none yet: replaced atomically at this path (a link's target, resolved).
        case file(String)
        /// A character device or a FIFO: written through, never replaced.
        case device
    }
    /// Checks that a page can be written at `path`: not empty, not a folder, in a folder that exists.
    ///
    /// - Parameters:
    ///   - path: The file, as given.
    ///   - option: The option that named it, for messages (`--html`).
    /// - Throws: ``CLIError`` 64 for an empty path, 65 for a folder, 66 for a missing parent folder.
    @discardableResult
    static func check(_ path: String, option: String) throws(CLIError) -> Target {
        guard !path.isEmpty else { throw CLIError(.usage, "\(option) needs a file name; got an empty one") }
        if path == "-" { return .standardOutput }
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                guard realpath(path, &resolved) != nil else {
                    throw CLIError(.ioError, "\(option): cannot resolve \(TextEscaping.name(path))")
                }
                return .file(String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            case S_IFCHR, S_IFIFO: return .device
            case S_IFDIR: break
            default:
                throw CLIError(
                    .dataError,
                    "\(option) names \(TextEscaping.name(path)), which is neither a file, a character device nor a "
                        + "FIFO: a page is not written there")
            }
        }
        if FileSystem.isDirectory(path) {
            throw CLIError(.dataError, "\(option) names a folder, not a file: \(TextEscaping.name(path))")
        }
        let parent = path.contains("/") ? FileSystem.parentDirectory(of: path) : "."
        guard FileSystem.isDirectory(parent.isEmpty ? "/" : parent) else {
            throw CLIError(
                .noInput, "\(option): the folder \(TextEscaping.name(parent)) does not exist (it is not created)")
        }
        return .file(path)
    }

    /// Checks that pages can be written into the folder `path` (a sweep's `--timeline DIR`).
    ///
    /// - Parameters:
    ///   - path: The folder, as given.
    ///   - option: The option that named it, for messages.
    /// - Throws: ``CLIError`` 64 for an empty path, 65 for a file, 66 for a folder that does not exist.
    static func checkFolder(_ path: String, option: String) throws(CLIError) {
        guard !path.isEmpty else { throw CLIError(.usage, "\(option) needs a folder name; got an empty one") }
        if FileSystem.exists(path) && !FileSystem.isDirectory(path) {
            throw CLIError(
                .dataError,
                "\(option) with a sweep names a folder for the failing seeds' pages, and \(TextEscaping.name(path)) is a file (give --seed S to write one page)"
            )
        }
        guard FileSystem.isDirectory(path) else {
            throw CLIError(
                .noInput, "\(option): the folder \(TextEscaping.name(path)) does not exist (it is not created)")
        }
    }

    /// Writes a page, atomically (the old file, if any, stays whole until the new one replaces it).
    ///
    /// - Parameters:
    ///   - html: The page.
    ///   - path: The file, as given.
    ///   - option: The option that named it, for messages.
    /// - Throws: ``CLIError`` 74 when the file cannot be written, or what ``check(_:option:)`` refuses.
    static func write(_ html: String, to path: String, option: String) throws(CLIError) {
        let bytes = Array(html.utf8)
        switch try check(path, option: option) {
        case .file(let file):
            do {
                try FileSystem.writeAtomically(bytes, to: file, permissions: 0o644)
            } catch {
                throw CLIError(.ioError, "cannot write \(TextEscaping.name(path))", underlying: error)
            }
        case .standardOutput:
            try writeThrough(bytes, descriptor: 1, path: "standard output")
        case .device:
            let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CLIError(
                    .ioError, "cannot write \(TextEscaping.name(path))",
                    underlying: FileSystemError(operation: "open", path: path, errno: errno))
            }
            defer { close(fd) }
            try writeThrough(bytes, descriptor: fd, path: path)
        }
    }

    /// Writes `bytes` to an open descriptor, all of them.
    private static func writeThrough(_ bytes: [UInt8], descriptor: Int32, path: String) throws(CLIError) {
        let code = FileSystem.writeAll(bytes, to: descriptor)
        guard code == 0 else {
            throw CLIError(
                .ioError, "cannot write \(TextEscaping.name(path))",
                underlying: FileSystemError(operation: "write", path: path, errno: code))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileSystem {
    /// Checks that nothing under `root` leads out of it: every entry, at every depth, is a plain folder or a regular
    /// file; a symbolic link (dangling or not), a FIFO, a socket or a device is refused, naming it.
    ///
    /// This is the one place the package checks the world's tree for links: it walks with `lstat` and `O_NOFOLLOW`,
    /// never following one, so a link in place of a folder the world uses (`Application Support`,
    /// `cloud/<account>`, `devices/<name>`) is found before any command creates, changes or deletes anything through
    /// it. `root` itself may be a link (it is the path the user chose). Entries that vanish during the walk (another
    /// process's temporary files) are skipped.
    ///
    /// - Parameter root: The folder to check.
    /// - Throws: ``FileSystemError`` naming the first entry that is not a folder or a regular file, or a folder that
    ///   cannot be read.
    package static func refuseLinksAndSpecialFiles(under root: String) throws(FileSystemError) {
        var pending = [root]
        while let folder = pending.popLast() {
            let names: [String]
            do {
                names = try contents(ofDirectory: folder)
            } catch  where error.errno == ENOENT && folder != root {
                continue
            }
            for name in names {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else {
                    let code = errno
                    if code == ENOENT { continue }
                    throw FileSystemError(operation: "lstat", path: path, errno: code)
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: pending.append(path)
                case S_IFREG: continue
                case S_IFLNK:
                    throw FileSystemError(
                        operation: "lstat", path: path, errno: ELOOP,
                        reason: "is a symbolic link (to \(linkTarget(path))); a world holds no links, so that "
                            + "nothing is read, written or deleted outside it: nothing was changed")
                default:
                    throw FileSystemError(
                        operation: "lstat", path: path, errno: EINVAL,
                        reason: "is not a regular file or a folder; nothing was changed")
                }
            }
        }
    }

    /// Where a symbolic link points, for messages.
    static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "?" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

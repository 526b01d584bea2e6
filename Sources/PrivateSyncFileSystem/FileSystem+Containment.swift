#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileSystem {
    /// Checks that nothing under `root` leads out of it: every entry, at every depth, is a plain folder or a regular
    /// file; a symbolic link (dangling or not), a FIFO, a socket or a device is refused, naming it.
    ///
    /// This is the one place the package checks the world's tree for links: it walks with the types the folders give
    /// their entries (`lstat` where they give none, or anything but a folder or a regular file) and `O_NOFOLLOW`,
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
            let entries: [(name: String, type: UInt8)]
            do {
                entries = try typedContents(ofDirectory: folder)
            } catch  where error.errno == ENOENT && folder != root {
                continue
            }
            for (name, type) in entries {
                let path = folder + "/" + name
                // The folder entry's type spares an lstat for each folder and regular file (every entry of a sound
                // world); anything else, or a file system that does not say, is looked at closely.
                if type == UInt8(DT_DIR) {
                    pending.append(path)
                    continue
                }
                if type == UInt8(DT_REG) { continue }
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

    /// The names in a folder with their types as the folder gives them (`DT_UNKNOWN` where it does not), sorted by
    /// name, without `.` and `..`.
    static func typedContents(ofDirectory path: String) throws(FileSystemError) -> [(name: String, type: UInt8)] {
        guard let directory = opendir(path) else {
            throw FileSystemError(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { entries.append((name, entry.pointee.d_type)) }
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// Where a symbolic link points, for messages.
    static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "?" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls this package makes on files and folders, each failing with a
/// ``FileSystemError`` that names the operation and the path.
///
/// Writes that must survive a crash go through ``writeAtomically(_:to:permissions:)``: a temporary file, `fsync`,
/// `rename`, and an `fsync` of the folder, so a reader sees the old contents or the new, never a mix.
package enum FileSystem {
    /// Whether something exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a folder.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The permission bits of `path` (such as `0o600`).
    ///
    /// - Throws: ``FileSystemError`` when `path` cannot be examined.
    package static func permissions(of path: String) throws(FileSystemError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileSystemError(operation: "stat", path: path, errno: errno) }
        return Int(info.st_mode & 0o7777)
    }

    /// Set once the process is ending (``refuseFolderCreation()``): no folder is created from then on.
    private static let refusingFolders = Atomic<Bool>(false)
    /// Calls of ``createDirectory(_:permissions:intermediate:)`` under way, waited for by ``refuseFolderCreation()``.
    private static let foldersBeingCreated = Atomic<Int>(0)

    /// Refuses every later ``createDirectory(_:permissions:intermediate:)`` (with `EINTR`), and returns once none is
    /// under way: for a process that removes its folders as it ends (the simulator on SIGTERM), so that a thread
    /// still running cannot create a removed folder again, with its missing parents, before the process dies.
    package static func refuseFolderCreation() {
        refusingFolders.store(true, ordering: .sequentiallyConsistent)
        while foldersBeingCreated.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
    }

    /// Creates a folder, and its missing parents when asked.
    ///
    /// - Parameters:
    ///   - path: The folder.
    ///   - permissions: Its permission bits (before the umask).
    ///   - intermediate: Whether to create missing parents too.
    /// - Throws: ``FileSystemError`` when a folder cannot be created (`EINTR` once the process is ending: see
    ///   ``refuseFolderCreation()``); an existing folder is not an error.
    package static func createDirectory(
        _ path: String, permissions: Int = 0o700, intermediate: Bool = true
    )
        throws(FileSystemError)
    {
        if isDirectory(path) { return }
        // Counted before the flag is read, so that `refuseFolderCreation` either sees this call or this call sees it.
        foldersBeingCreated.add(1, ordering: .sequentiallyConsistent)
        defer { foldersBeingCreated.subtract(1, ordering: .sequentiallyConsistent) }
        if refusingFolders.load(ordering: .sequentiallyConsistent) {
            throw FileSystemError(operation: "mkdir", path: path, errno: EINTR)
        }
        if intermediate {
            let parent = parentDirectory(of: path)
            if parent != path && !parent.isEmpty && !exists(parent) {
                try createDirectory(parent, permissions: permissions, intermediate: true)
            }
        }
        if mkdir(path, mode_t(permissions)) != 0 {
            let code = errno
            if code == EEXIST && isDirectory(path) { return }
            throw FileSystemError(operation: "mkdir", path: path, errno: code)
        }
    }

    /// Creates a folder that must not exist yet: of two processes creating it at once, exactly one succeeds.
    ///
    /// - Parameters:
    ///   - path: The folder; its parent must exist.
    ///   - permissions: Its permission bits (before the umask).
    /// - Throws: ``FileSystemError`` with `EEXIST` when something is already there, or why it cannot be created.
    package static func createNewDirectory(_ path: String, permissions: Int = 0o700) throws(FileSystemError) {
        if mkdir(path, mode_t(permissions)) != 0 { throw FileSystemError(operation: "mkdir", path: path, errno: errno) }
    }

    /// The names in a folder, sorted, without `.` and `..`.
    ///
    /// - Throws: ``FileSystemError`` when the folder cannot be read.
    package static func contents(ofDirectory path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else {
            throw FileSystemError(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = name(ofEntryAt: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The name of an entry `readdir` returned, read from the entry's own bytes up to its terminating NUL.
    ///
    /// An entry in the kernel's buffer is as long as its name, not `MemoryLayout<dirent>.size`: copying the whole
    /// struct (`entry.pointee`) read past the last entry of a buffer that ends at a page boundary, into an unmapped
    /// page (`make test` crashed in a `memcpy` under `contents(ofDirectory:)` once, two suites listing one folder).
    ///
    /// - Parameter entry: The entry (a `dirent`).
    /// - Returns: Its name.
    package static func name(ofEntryAt entry: UnsafeRawPointer) -> String {
        String(cString: entry.advanced(by: direntNameOffset).assumingMemoryBound(to: CChar.self))
    }

    /// Where `d_name` starts in a `dirent`.
    private static let direntNameOffset: Int = {
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else {
            preconditionFailure("dirent.d_name is a stored field of the C struct")
        }
        return offset
    }()

    /// Reads a whole file.
    ///
    /// - Throws: ``FileSystemError`` when it cannot be read.
    package static func read(_ path: String) throws(FileSystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        // Read into a buffer of the file's size and one byte more, to see its end in the same reads: nothing is
        // zeroed first, nor copied from a chunk. A file that grew meanwhile is read on to its end.
        var info = stat()
        let size = fstat(fd, &info) == 0 ? max(Int(info.st_size), 0) : 0
        var bytes: [UInt8] = []
        var capacity = size + 1
        while true {
            var failure: Int32 = 0
            var ended = false
            let read = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                var total = 0
                while total < buffer.count {
                    let count = systemRead(fd, buffer.baseAddress! + total, buffer.count - total)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        break
                    }
                    if count == 0 {
                        ended = true
                        break
                    }
                    total += count
                }
                initialized = total
            }
            if failure != 0 { throw FileSystemError(operation: "read", path: path, errno: failure) }
            if bytes.isEmpty { bytes = read } else { bytes += read }
            if ended { return bytes }
            capacity = 65_536
        }
    }

    /// How many temporary names this process has made, so that each is new.
    private static let temporaryNames = Atomic<Int>(0)

    /// How many counter values a temporary name cycles through: four base-36 digits, so that the suffix stays short
    /// however many names one process makes.
    static let temporaryNameCycle = 36 * 36 * 36 * 36

    /// The longest suffix ``uniqueName(_:)`` adds to its prefix: a process identifier in base 36 (Linux's largest,
    /// 2^22, and Darwin's, 99,999, both take at most five digits), a dash and four digits of the counter. A name
    /// of up to 255 - 5 - 10 = 240 bytes therefore still has room for `.tmp-` and the suffix.
    package static let longestUniqueSuffix = 10

    /// A name no other call of any process running now is likely to make: `prefix`, the process identifier and a
    /// counter, both in base 36 so that the name stays within ``longestUniqueSuffix`` bytes of `prefix`.
    ///
    /// The counter cycles (after ``temporaryNameCycle`` names), and a dead process's identifier is reused, so a
    /// name can meet a file already there: callers create with `O_EXCL` and ask again (an unbounded decimal
    /// counter made names grow past the file system's 255 bytes after 10,000 writes in one process).
    ///
    /// - Parameter prefix: The name's start.
    /// - Returns: The name.
    package static func uniqueName(_ prefix: String) -> String {
        uniqueName(prefix, process: Int(getpid()), count: temporaryNames.add(1, ordering: .relaxed).newValue)
    }

    /// The name ``uniqueName(_:)`` makes for a process identifier and a counter value.
    ///
    /// - Parameters:
    ///   - prefix: The name's start.
    ///   - process: The process identifier.
    ///   - count: The counter's value; only its remainder by ``temporaryNameCycle`` is used.
    /// - Returns: The name.
    package static func uniqueName(_ prefix: String, process: Int, count: Int) -> String {
        let cycled = ((count % temporaryNameCycle) + temporaryNameCycle) % temporaryNameCycle
        return prefix + String(max(process, 0), radix: 36) + "-" + String(cycled, radix: 36)
    }

    /// Replaces a file's contents atomically and durably.
    ///
    /// - Parameters:
    ///   - bytes: The new contents.
    ///   - path: The file.
    ///   - permissions: Its permission bits.
    /// - Throws: ``FileSystemError`` when any step fails; the old contents are then untouched.
    package static func writeAtomically(
        _ bytes: [UInt8], to path: String, permissions: Int = 0o600
    )
        throws(FileSystemError)
    {
        // Unique to this call, not only to this process: two threads replacing one file at once must not share a
        // temporary file (each would truncate and rename the other's).
        // O_EXCL: a name can meet a dead process's leftover or, after the counter cycles, a name still in use;
        // either is skipped, never truncated.
        var temporary: String
        var fd: Int32
        var attempts = 0
        repeat {
            temporary = path + uniqueName(".tmp-")
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
            attempts += 1
        } while fd < 0 && errno == EEXIST && attempts < temporaryNameCycle
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: temporary, errno: errno) }
        let code = writeAll(bytes, to: fd)
        guard code == 0 else {
            close(fd)
            unlink(temporary)
            throw FileSystemError(operation: "write", path: temporary, errno: code)
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            unlink(temporary)
            throw FileSystemError(operation: "fsync", path: temporary, errno: code)
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw FileSystemError(operation: "rename", path: path, errno: code)
        }
        syncDirectory(parentDirectory(of: path))
    }

    /// Removes the temporary files that atomic writes of `path` left when their process died between making one and
    /// renaming it over `path` (``writeAtomically(_:to:permissions:)``'s `PATH.tmp-` and a suffix), so that kills do not
    /// pile files up beside it. Only regular files of that name are removed; `path` itself is not touched.
    ///
    /// Call it only while no other writer of `path` can be running, under the lock every writer of it holds: a
    /// running write's temporary file would be taken from under it (its rename would then fail, not lose data).
    ///
    /// - Parameter path: The file atomic writes replace.
    /// - Returns: How many were removed.
    /// - Throws: ``FileSystemError`` when the folder cannot be listed or a leftover cannot be removed.
    @discardableResult
    package static func removeTemporaries(leftBy path: String) throws(FileSystemError) -> Int {
        let folder = parentDirectory(of: path)
        let prefix = (path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path) + ".tmp-"
        var removed = 0
        for name in try contents(ofDirectory: folder) where name.hasPrefix(prefix) {
            let leftover = folder + "/" + name
            var info = stat()
            guard lstat(leftover, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            guard unlink(leftover) == 0 || errno == ENOENT else {
                throw FileSystemError(operation: "unlink", path: leftover, errno: errno)
            }
            removed += 1
        }
        if removed > 0 { syncDirectory(folder) }
        return removed
    }

    /// Writes all of `bytes` to the open descriptor `fd`, retrying interrupted and partial writes.
    ///
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - fd: An open descriptor, written from its current offset.
    /// - Returns: `0` when every byte was written, else the `errno` of the write that failed.
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                return code
            }
            written += count
        }
        return 0
    }

    /// Renames a file or folder, replacing nothing that is a non-empty folder, and makes the change durable.
    ///
    /// - Throws: ``FileSystemError`` when the rename fails.
    package static func move(_ source: String, to destination: String) throws(FileSystemError) {
        if rename(source, destination) != 0 {
            throw FileSystemError(operation: "rename", path: "\(source) -> \(destination)", errno: errno)
        }
        syncDirectory(parentDirectory(of: destination))
        if parentDirectory(of: source) != parentDirectory(of: destination) {
            syncDirectory(parentDirectory(of: source))
        }
    }

    /// Removes a file, or a folder and everything in it. A missing path is not an error.
    ///
    /// - Throws: ``FileSystemError`` when something cannot be removed.
    package static func removeItem(_ path: String) throws(FileSystemError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw FileSystemError(operation: "lstat", path: path, errno: errno)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try contents(ofDirectory: path) { try removeItem(path + "/" + name) }
            if rmdir(path) != 0 { throw FileSystemError(operation: "rmdir", path: path, errno: errno) }
        } else if unlink(path) != 0 {
            throw FileSystemError(operation: "unlink", path: path, errno: errno)
        }
    }

    /// Makes a change to a folder's entries (a create, rename or unlink) durable.
    package static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Creates a new, empty, owner-only folder with a unique name (`mkdtemp`).
    ///
    /// - Parameters:
    ///   - prefix: The start of its name.
    ///   - parent: The folder to create it in.
    /// - Returns: Its path.
    /// - Throws: ``FileSystemError`` when it cannot be created.
    package static func makeTemporaryDirectory(
        prefix: String, in parent: String = "/tmp"
    ) throws(FileSystemError)
        -> String
    {
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw FileSystemError(operation: "mkdtemp", path: parent + "/" + prefix, errno: errno)
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The folder that holds `path`.
    package static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `path` made absolute against the current folder.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path == "." ? cwd : cwd + "/" + path
    }
}

// `read(2)` and `write(2)`, named apart from ``FileSystem/read(_:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

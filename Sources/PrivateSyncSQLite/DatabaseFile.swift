import PrivateSyncFileSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a database file of this package looks like: its SQLite `application_id`, its schema version and its tables.
///
/// Every file this package writes carries its format's `application_id` in the SQLite header, so that a file of
/// another kind (another program's database, or a container file given where a store is expected) is recognised
/// from its first 100 bytes and refused before SQLite is asked to touch it.
package struct DatabaseFormat: Sendable {
    /// The value of `PRAGMA application_id` in every file of this format.
    package let applicationID: Int32
    /// The value of `PRAGMA user_version`: the schema version this build writes.
    package let version: Int32
    /// What a user would call such a file, as in "is not a PrivateSync container database".
    package let name: String
    /// The statements that create the schema of a new file.
    package let schema: [String]
    /// The page size of a new file, in bytes, or `nil` for SQLite's default (4,096). An existing file keeps the
    /// size it was created with.
    package let pageSize: Int?

    /// Creates a format.
    ///
    /// - Parameters:
    ///   - applicationID: The `application_id` stamped into every file.
    ///   - version: The schema version.
    ///   - name: A name for messages.
    ///   - schema: The `CREATE` statements for a new file.
    ///   - pageSize: The page size of a new file (a power of two from 512 to 65,536), or `nil` for SQLite's.
    package init(applicationID: Int32, version: Int32, name: String, schema: [String], pageSize: Int? = nil) {
        self.applicationID = applicationID
        self.version = version
        self.name = name
        self.schema = schema
        self.pageSize = pageSize
    }
}

/// How much a committed transaction survives.
public enum Durability: Sendable {
    /// Survives power loss: `synchronous = FULL`, an fsync on every commit. The default for files a user keeps.
    case survivesPowerLoss
    /// Survives a killed process but not power loss: `synchronous = OFF`. For simulation on a scratch disk,
    /// where a "crash" is a dropped process and the operating system keeps what was written.
    case survivesProcessCrash
}

/// Opens and creates the database files of this package, refusing damaged and foreign files without changing them.
package enum DatabaseFile {
    /// Opens a database file of `format`, creating it first when asked to and missing.
    ///
    /// An existing file is checked before SQLite opens it: its header must be a SQLite header, its size must agree
    /// with the page count the header records, and its `application_id` must be the format's. A file that fails
    /// is never written to. A new file is built under a temporary name, made durable and linked into place, so a
    /// crash never leaves a half-created file at `path`.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - format: What the file must be.
    ///   - create: Whether to create the file when it is missing.
    ///   - durability: How much a commit survives.
    ///   - readOnly: Whether to open without the right to write (the file must exist).
    ///   - verifyIntegrity: Whether to also run `PRAGMA integrity_check`, which reads every page and compares every
    ///     index with its table.
    ///   - verificationMemo: Where the states of files that passed the check are remembered, so that a file is
    ///     checked once per change rather than at every open; `nil` checks at every open.
    /// - Returns: A configured connection (WAL, busy timeout, synchronous setting).
    /// - Throws: ``DatabaseFileError`` naming the file and what is wrong with it.
    package static func open(
        at path: String, format: DatabaseFormat, create: Bool, durability: Durability = .survivesPowerLoss,
        readOnly: Bool = false, verifyIntegrity: Bool = false, verificationMemo: VerificationMemo? = nil
    ) throws(DatabaseFileError) -> Connection {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT else {
                throw systemFailure(.unreadable, path: path, errno: code)
            }
            guard create, !readOnly else { throw DatabaseFileError(.missing, path: path, detail: "no such file") }
            // A write-ahead log whose database is gone (removed by hand, or by a tool that deleted the file first)
            // would be replayed into the new file, which it does not belong to: refused, and left as it is.
            // (Checked again for the database after the log: another process may have made both meanwhile.)
            var log = stat()
            if stat(path + "-wal", &log) == 0 && log.st_size > 0 && !FileSystem.exists(path) {
                throw DatabaseFileError(
                    .damaged, path: path + "-wal",
                    detail: "a write-ahead log of \(log.st_size) bytes is there without its database, which SQLite "
                        + "would replay into a new \(format.name); remove it (and any -shm) if its data is not "
                        + "needed; nothing was changed")
            }
            try createFile(at: path, format: format)
        } else if (info.st_mode & S_IFMT) != S_IFREG {
            throw DatabaseFileError(.notADatabase, path: path, detail: "it is not a regular file")
        }
        let mode = try openMode(path, readOnly: readOnly)
        let connection: Connection
        do {
            // SQLite opens the file and reads nothing that matters yet; the header is judged through that open file
            // before the first statement (which could write: a WAL recovery, a rollback), never through a
            // descriptor of ours, whose closing would drop this process's locks on the file (see
            // `Connection+FileAccess.swift`).
            connection = try Connection(path: path, mode: mode)
            let header = try DatabaseHeader.validate(connection, path: path, format: format)
            if !readOnly && !header.isWAL {
                // The file is ours; one in WAL mode (every file this package writes) needs no pragma at each opening.
                try connection.execute("PRAGMA journal_mode = WAL")
            }
            switch durability {
            case .survivesPowerLoss: try connection.execute("PRAGMA synchronous = FULL")
            case .survivesProcessCrash: try connection.execute("PRAGMA synchronous = OFF")
            }
            // Reads the schema: a damaged first page or schema table fails here, before any write.
            _ = try connection.scalarInt("SELECT count(*) FROM sqlite_schema")
            if verifyIntegrity {
                // The file as it stands now that it is open (opening may have created its write-ahead log): checked
                // already, and unchanged since, it is not checked again.
                let state = verificationMemo.flatMap { _ in VerificationMemo.state(of: path, through: connection) }
                if let verificationMemo, let state, verificationMemo.isVerified(path, state) {
                    return connection
                }
                let checkStart = VerificationMemo.coarseNow()
                verificationMemo?.checksRun.add(1, ordering: .relaxed)
                try checkEveryPage(connection, path: path)
                if let verificationMemo, let state, VerificationMemo.state(of: path, through: connection) == state {
                    verificationMemo.record(path, state, checkStart: checkStart)
                }
            }
        } catch let error as DatabaseFileError {
            throw error
        } catch let error as SQLiteError {
            throw DatabaseFileError(sqlite: error, path: path)
        } catch {
            throw DatabaseFileError(.unreadable, path: path, detail: "\(error)")
        }
        return connection
    }

    /// Runs `PRAGMA integrity_check`, which reads every page and compares every index with its table.
    ///
    /// Not `quick_check`, which skips the comparison: on a store whose index had lost rows (issue 22's corruption),
    /// `record list` answered 933 of 1,052 records with exit 0. The comparison costs 3 to 5 times the page reads
    /// (`make bench`: `integrity_check_ms` against `quick_check_ms`), once per change of the file with the memo.
    ///
    /// Through a memory map it costs a page fault per 16 pages instead of a read per page (on this project's
    /// machines 1.4 ms instead of 3.3 ms for a 1 MB store, most of a `privatesync sync status`). SQLite maps only the
    /// bytes the file has, so a file truncated before it was opened is still read (and refused) through `read`; the
    /// map is dropped after the check.
    ///
    /// - Throws: ``DatabaseFileError`` `damaged` with the check's first findings.
    private static func checkEveryPage(_ connection: Connection, path: String) throws {
        try connection.execute("PRAGMA mmap_size = 268435456")
        defer { try? connection.execute("PRAGMA mmap_size = 0") }
        let problems = try connection.integrityCheckProblems()
        if !problems.isEmpty {
            throw DatabaseFileError(
                .damaged, path: path, detail: "integrity check failed: " + problems.prefix(3).joined(separator: "; "))
        }
    }

    /// How to open an existing file, after checking that everything a write needs can be written, so that a
    /// failure names its real cause (the file, its `-shm`, its folder) instead of SQLite's "attempt to write a
    /// readonly database".
    ///
    /// A read opens the file read-only. When the file or its folder cannot be written, and its WAL is empty, it is
    /// opened immutable: SQLite would otherwise create a `-shm` (with the file's read-only mode, which breaks every
    /// later write once permissions come back) or fail for want of one.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - readOnly: Whether the open only reads.
    /// - Returns: The mode to open with.
    /// - Throws: ``DatabaseFileError`` `unwritable` naming what cannot be written, for a write.
    static func openMode(_ path: String, readOnly: Bool) throws(DatabaseFileError) -> Connection.OpenMode {
        let folder = FileSystem.parentDirectory(of: path)
        let fileWritable = isWritable(path)
        let folderWritable = isWritable(folder)
        let wal = path + "-wal"
        let shm = path + "-shm"
        var walInfo = stat()
        let walHasFrames = stat(wal, &walInfo) == 0 && walInfo.st_size > 0
        let shmExists = FileSystem.exists(shm)
        if readOnly {
            if (!fileWritable || !folderWritable) && !walHasFrames { return .readOnlyImmutable }
            return .readOnly
        }
        guard fileWritable else {
            throw DatabaseFileError(
                .unwritable, path: path, detail: "the file is read-only (mode \(modeText(path))); nothing was changed")
        }
        if isReadOnlyFile(shm) {
            throw DatabaseFileError(
                .unwritable, path: shm,
                detail: "SQLite's shared-memory index of \(path) is read-only (mode \(modeText(shm))); "
                    + "make it writable or remove it while no command runs; nothing was changed")
        }
        if !folderWritable && (!shmExists || access(wal, F_OK) != 0) {
            throw DatabaseFileError(
                .unwritable, path: folder,
                detail: "the folder of \(path) is read-only (mode \(modeText(folder))), and SQLite must create its "
                    + "-wal and -shm there to write; nothing was changed")
        }
        return .readWrite
    }

    /// Whether `path` may be written: its owner-write bit is set (so a file the user made read-only counts as
    /// read-only even for root, whom `access` never refuses) and `access` allows it.
    static func isWritable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IWUSR != 0 && access(path, W_OK) == 0
    }

    /// Whether `path` exists and cannot be written (by its owner-write bit, or `access`). A file that is missing, or
    /// goes while it is looked at, is not: another process's last connection removes a `-shm` (and the next makes it
    /// anew) at any moment, and a `-shm` gone since it was seen is no obstacle to a write.
    static func isReadOnlyFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        if info.st_mode & S_IWUSR == 0 { return true }
        return access(path, W_OK) != 0 && errno != ENOENT
    }

    /// The permission bits of `path` in octal, for messages.
    static func modeText(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "?" }
        return "0" + String(info.st_mode & 0o777, radix: 8)
    }

    /// Opens a private in-memory database with `format`'s schema, for tests and simulation.
    ///
    /// - Parameter format: The schema to create.
    /// - Returns: A connection to a new, empty database that lives as long as the connection.
    /// - Throws: ``DatabaseFileError`` when the schema does not compile.
    package static func openInMemory(format: DatabaseFormat) throws(DatabaseFileError) -> Connection {
        do {
            let connection = try Connection(path: ":memory:", mode: .readWriteCreate)
            try install(format, on: connection)
            return connection
        } catch {
            throw DatabaseFileError(sqlite: error, path: ":memory:")
        }
    }

    /// Writes `format`'s identity and schema in one transaction.
    private static func install(_ format: DatabaseFormat, on connection: Connection) throws(SQLiteError) {
        // Before the first table: a file's page size is fixed once it holds one.
        if let pageSize = format.pageSize { try connection.execute("PRAGMA page_size = \(pageSize)") }
        try connection.execute("BEGIN")
        try connection.execute("PRAGMA application_id = \(format.applicationID)")
        try connection.execute("PRAGMA user_version = \(format.version)")
        for statement in format.schema { try connection.execute(statement) }
        try connection.execute("COMMIT")
    }

    /// Held while this process creates a file: its temporary name is the process's, so two threads creating one
    /// file at once would share it.
    private static let creating = Mutex(())

    private static func createFile(at path: String, format: DatabaseFormat) throws(DatabaseFileError) {
        try creating.withLock { _ throws(DatabaseFileError) in try createFileAlone(at: path, format: format) }
    }

    private static func createFileAlone(at path: String, format: DatabaseFormat) throws(DatabaseFileError) {
        let temporary = path + ".creating-\(getpid())"
        unlink(temporary)
        let fd = openDescriptor(temporary, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode_t(0o600))
        guard fd >= 0 else {
            throw systemFailure(.cannotCreate, path: path, errno: errno)
        }
        if let image = emptyImage(of: format) {
            let code = FileSystem.writeAll(image, to: fd)
            close(fd)
            guard code == 0 else {
                unlink(temporary)
                throw systemFailure(.cannotCreate, path: path, errno: code)
            }
        } else {
            close(fd)
            try build(temporary, format: format, finalPath: path)
            rememberEmptyImage(of: format, from: temporary)
        }
        try syncFile(temporary, finalPath: path)
        // link() refuses to replace: if another process created the file meanwhile, theirs wins and is opened.
        if link(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            if code == EEXIST { return }
            throw systemFailure(.cannotCreate, path: path, errno: code)
        }
        unlink(temporary)
        FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
    }

    /// Builds an empty file of `format` at `temporary` with a connection of its own: the schema, the format's
    /// identity, write-ahead logging; its log and shared memory removed, so it is one file.
    ///
    /// - Throws: ``DatabaseFileError`` `cannotCreate`, naming `finalPath`, after removing the temporary file.
    private static func build(
        _ temporary: String, format: DatabaseFormat, finalPath: String
    ) throws(DatabaseFileError) {
        do {
            let connection = try Connection(path: temporary, mode: .readWrite)
            // No one can see the file until it is linked into place, after `syncFile` has made all of it durable:
            // a sync at each step of building it would add nothing (a crash meanwhile leaves only the temporary).
            try connection.execute("PRAGMA synchronous = OFF")
            try install(format, on: connection)
            // Written to the file's header through a rollback journal, whatever the mode was; the write-ahead log
            // this opens stays empty, and closing the connection removes it, so only one file is moved into place.
            try connection.execute("PRAGMA journal_mode = WAL")
        } catch {
            unlink(temporary)
            var failure = DatabaseFileError(.cannotCreate, path: finalPath, detail: error.description)
            failure.systemErrno = error.isDiskFull ? ENOSPC : error.systemErrno
            throw failure
        }
        unlink(temporary + "-wal")
        unlink(temporary + "-shm")
    }

    private static func syncFile(_ temporary: String, finalPath: String) throws(DatabaseFileError) {
        let fd = openDescriptor(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw systemFailure(.cannotCreate, path: finalPath, errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw systemFailure(.cannotCreate, path: finalPath, errno: code)
        }
    }

    /// A failure of a system call on `path`, with its `errno` kept (so a full disk is known as one).
    static func systemFailure(_ code: DatabaseFileError.Code, path: String, errno: Int32) -> DatabaseFileError {
        var failure = DatabaseFileError(code, path: path, detail: describe(errno: errno))
        failure.systemErrno = errno
        return failure
    }

    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code)) + " (errno \(code))"
    }
}

/// `open(2)`, named apart from ``DatabaseFile/open(at:format:create:durability:readOnly:verifyIntegrity:)``.
func openDescriptor(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}

import CSQLite

/// Reading a connection's files through SQLite's own open files.
///
/// SQLite's locks are POSIX advisory locks, which belong to the process and the file, not to a descriptor: closing
/// *any* descriptor of a database file drops every lock this process holds on it, those of every connection included
/// (<https://www.sqlite.org/howtocorrupt.html>, 2.2). Another process may then checkpoint and delete the write-ahead
/// log under a transaction of ours, and acknowledged writes are lost or the file is corrupted. So this package never
/// opens a database file, its `-wal` or its `-shm` itself while a connection to it may exist, in this process or
/// another: it reads their bytes through the `sqlite3_file` objects SQLite already holds open
/// (`SQLITE_FCNTL_FILE_POINTER`, `SQLITE_FCNTL_JOURNAL_POINTER`), which open and close nothing.
extension Connection {
    /// What SQLite's open database or log file holds: its size and its first bytes.
    package struct FileStart: Equatable, Sendable {
        /// The file's size in bytes.
        package let size: Int
        /// Its first bytes, as many as were asked for and exist.
        package let bytes: [UInt8]
    }

    /// The size and first bytes of the database file this connection has open, read through SQLite's own file.
    ///
    /// - Parameter count: How many bytes to read from the start (fewer when the file is shorter).
    /// - Returns: The file's size and bytes, or `nil` when SQLite has no file open (an in-memory database).
    /// - Throws: ``SQLiteError`` when the file cannot be read.
    package func mainFileStart(count: Int) throws(SQLiteError) -> FileStart? {
        try fileStart(SQLITE_FCNTL_FILE_POINTER, count: count)
    }

    /// The size and first bytes of the write-ahead log this connection has open, read through SQLite's own file.
    ///
    /// - Parameter count: How many bytes to read from the start (fewer when the log is shorter).
    /// - Returns: The log's size and bytes, or `nil` when SQLite has no log open (none yet, or the database is not in
    ///   WAL mode, or is opened immutable).
    /// - Throws: ``SQLiteError`` when the log cannot be read.
    package func logFileStart(count: Int) throws(SQLiteError) -> FileStart? {
        try fileStart(SQLITE_FCNTL_JOURNAL_POINTER, count: count)
    }

    /// Runs `body` holding a shared lock on the database file, taken through SQLite's own file (`xLock`), so that
    /// what `body` reads of the file and its log is one state of them: no other process can meanwhile take the
    /// exclusive lock with which a closing connection checkpoints the log into the file and deletes it (between a
    /// read of the header and one of the log, that checkpoint made a sound file look truncated).
    ///
    /// The lock is SQLite's lock, on SQLite's descriptor, and is released (back to none) before the first statement,
    /// which takes its own. While another process holds the file exclusively, it is tried again as SQLite's busy
    /// handler would, for up to `timeoutMilliseconds`.
    ///
    /// - Parameters:
    ///   - timeoutMilliseconds: How long to wait for an exclusive holder to finish; `nil` for the process's default
    ///     (``defaultBusyTimeoutMilliseconds``).
    ///   - body: What to read under the lock.
    /// - Returns: What `body` returns.
    /// - Throws: ``SQLiteError`` `SQLITE_BUSY` when the lock cannot be had in time, or what `body` throws.
    package func withSharedFileLock<T, E: Error>(
        timeoutMilliseconds: Int32? = nil, _ body: () throws(E) -> T
    ) throws -> T {
        let timeoutMilliseconds = timeoutMilliseconds ?? Self.defaultBusyTimeoutMilliseconds
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
            let file = pointer, let methods = file.pointee.pMethods, let lock = methods.pointee.xLock,
            let unlock = methods.pointee.xUnlock
        else { return try body() }
        var waited: Int32 = 0
        var delay: Int32 = 1
        while true {
            let rc = lock(file, SQLITE_LOCK_SHARED)
            if rc == SQLITE_OK { break }
            guard rc & 0xFF == SQLITE_BUSY, waited < timeoutMilliseconds else {
                throw SQLiteError(extendedCode: rc, message: "cannot lock the file to read its header", path: path)
            }
            sqlite3_sleep(delay)
            waited += delay
            delay = min(delay * 2, 25)
        }
        defer { _ = unlock(file, SQLITE_LOCK_NONE) }
        return try body()
    }

    /// `SQLITE_IOERR_SHORT_READ`, a macro Swift does not import.
    private static let shortRead = SQLITE_IOERR | (2 << 8)

    private func fileStart(_ operation: Int32, count: Int) throws(SQLiteError) -> FileStart? {
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        let rc = sqlite3_file_control(handle, "main", operation, &pointer)
        // A closed file has no methods: SQLite keeps the object but has not opened (or has closed) what it stands for.
        guard rc == SQLITE_OK, let file = pointer, let methods = file.pointee.pMethods,
            let fileSize = methods.pointee.xFileSize, let read = methods.pointee.xRead
        else { return nil }
        var size: sqlite3_int64 = 0
        let sizeCode = fileSize(file, &size)
        guard sizeCode == SQLITE_OK else {
            throw SQLiteError(extendedCode: sizeCode, message: "cannot read the file's size", path: path)
        }
        let wanted = max(0, min(count, Int(size)))
        var bytes = [UInt8](repeating: 0, count: wanted)
        if wanted > 0 {
            let readCode = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(wanted), 0) }
            // A short read (the file shrank since its size was read) fills the rest with zeros, as SQLite does.
            guard readCode == SQLITE_OK || readCode == Self.shortRead else {
                throw SQLiteError(extendedCode: readCode, message: "cannot read the file's first bytes", path: path)
            }
        }
        return FileStart(size: Int(size), bytes: bytes)
    }
}

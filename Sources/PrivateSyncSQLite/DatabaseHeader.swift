#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The first 100 bytes of a SQLite database file, read and judged before SQLite runs a statement on it.
///
/// Judging the header ourselves lets a damaged or foreign file be refused before SQLite could write to it (not even a
/// journal-mode change or a WAL recovery): the bytes are read through the file SQLite opened, before any statement.
/// Layout: <https://www.sqlite.org/fileformat2.html#the_database_header>.
struct DatabaseHeader {
    static let magic: [UInt8] = Array("SQLite format 3\0".utf8)

    let pageSize: Int
    let pageCount: Int?
    let applicationID: Int32
    let userVersion: Int32
    /// Whether the file is in WAL mode (read and write versions 2).
    let isWAL: Bool

    init(bytes: [UInt8]) {
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
        func u32(_ offset: Int) -> UInt32 {
            UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
        }
        let rawPageSize = u16(16)
        pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // The in-header page count is valid only when the change counter matches "version-valid-for".
        pageCount = u32(24) == u32(92) ? Int(u32(28)) : nil
        applicationID = Int32(bitPattern: u32(68))
        userVersion = Int32(bitPattern: u32(60))
        isWAL = bytes[18] == 2 && bytes[19] == 2
    }

    /// Checks that the file SQLite has open for `connection` holds a sound database of `format`, reading only its
    /// size and header through SQLite's own open file (see ``Connection/mainFileStart(count:)``: opening the file
    /// here would drop the locks of every connection of this process to it). Opening a connection reads nothing and
    /// writes nothing, so this runs before the first statement, which could write (a WAL recovery, a rollback).
    ///
    /// - Parameters:
    ///   - connection: A connection just opened on `path`, before any statement ran on it.
    ///   - path: The file, for messages and for its log's size.
    ///   - format: The expected format.
    /// - Throws: ``DatabaseFileError`` saying what is wrong.
    @discardableResult
    static func validate(
        _ connection: Connection, path: String, format: DatabaseFormat
    ) throws(DatabaseFileError) -> DatabaseHeader {
        // The header, the file's size and the log's size are read as one state, under a shared lock: a closing
        // connection of another process cannot checkpoint and delete the log in between.
        let opened: Connection.FileStart?
        let logSize: Int
        do {
            (opened, logSize) = try connection.withSharedFileLock { () throws(SQLiteError) in
                var log = stat()
                let start = try connection.mainFileStart(count: 100)
                return (start, stat(path + "-wal", &log) == 0 ? Int(log.st_size) : 0)
            }
        } catch let error as SQLiteError {
            throw DatabaseFileError(sqlite: error, path: path)
        } catch {
            throw DatabaseFileError(.unreadable, path: path, detail: "\(error)")
        }
        guard let start = opened else {
            throw DatabaseFileError(.unreadable, path: path, detail: "SQLite has no file open")
        }
        let size = start.size
        if size == 0 {
            throw DatabaseFileError(.damaged, path: path, detail: "the file is empty; a \(format.name) is never empty")
        }
        let bytes = start.bytes + [UInt8](repeating: 0, count: 100 - start.bytes.count)
        let count = start.bytes.count
        if count < 100 || Array(bytes[0..<16]) != magic {
            if count >= 16 && Array(bytes[0..<16]) == magic
                || count > 0 && magic.starts(with: bytes[0..<min(count, 16)])
            {
                throw DatabaseFileError(.damaged, path: path, detail: "truncated to \(size) bytes, inside the header")
            }
            throw DatabaseFileError(.notADatabase, path: path, detail: "no SQLite header at the start of the file")
        }
        let header = DatabaseHeader(bytes: bytes)
        guard header.pageSize >= 512, header.pageSize <= 65_536, header.pageSize & (header.pageSize - 1) == 0 else {
            throw DatabaseFileError(
                .damaged, path: path, detail: "the header's page size \(header.pageSize) is invalid")
        }
        // A checkpoint stopped part-way (by a full disk, say) can leave the first page, with its new page count,
        // written before the file was extended; the pages are still in the write-ahead log, which SQLite reads
        // first, so the file is sound. With a non-empty log the size checks are left to SQLite's own checks.
        if logSize == 0, size % header.pageSize != 0 {
            throw DatabaseFileError(
                .damaged, path: path,
                detail: "its size, \(size) bytes, is not a whole number of \(header.pageSize)-byte pages (truncated?)")
        }
        if logSize == 0, let pages = header.pageCount, size < pages * header.pageSize {
            throw DatabaseFileError(
                .damaged, path: path,
                detail: "the header records \(pages) pages of \(header.pageSize) bytes but the file holds \(size) bytes"
            )
        }
        if header.applicationID != format.applicationID {
            throw DatabaseFileError(
                .foreignDatabase, path: path,
                detail: "application_id \(header.applicationID), where a \(format.name) has \(format.applicationID)")
        }
        if header.userVersion > format.version {
            throw DatabaseFileError(
                .newerVersion, path: path,
                detail: "schema version \(header.userVersion); this build reads up to \(format.version)")
        }
        return header
    }
}

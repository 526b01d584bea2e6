import CSQLite
import PrivateSyncFileSystem

/// An error reported by SQLite, or found by this layer before SQLite was asked.
///
/// It carries SQLite's primary and extended result codes, SQLite's own message, the statement that failed and the
/// file it ran against, so that a message read by a user names both what went wrong and where.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A primary SQLite result code (the low byte of an extended code).
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        package static let error = Code(rawValue: SQLITE_ERROR)
        package static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        package static let permission = Code(rawValue: SQLITE_PERM)
        package static let abort = Code(rawValue: SQLITE_ABORT)
        package static let busy = Code(rawValue: SQLITE_BUSY)
        package static let locked = Code(rawValue: SQLITE_LOCKED)
        package static let noMemory = Code(rawValue: SQLITE_NOMEM)
        package static let readOnly = Code(rawValue: SQLITE_READONLY)
        package static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        package static let ioError = Code(rawValue: SQLITE_IOERR)
        package static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        package static let notFound = Code(rawValue: SQLITE_NOTFOUND)
        package static let full = Code(rawValue: SQLITE_FULL)
        package static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        package static let `protocol` = Code(rawValue: SQLITE_PROTOCOL)
        package static let schema = Code(rawValue: SQLITE_SCHEMA)
        package static let tooBig = Code(rawValue: SQLITE_TOOBIG)
        package static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        package static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        package static let misuse = Code(rawValue: SQLITE_MISUSE)
        package static let range = Code(rawValue: SQLITE_RANGE)
        package static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        /// SQLite's symbolic name for the code, such as `SQLITE_CORRUPT`.
        package var name: String {
            switch rawValue {
            case SQLITE_ERROR: "SQLITE_ERROR"
            case SQLITE_INTERNAL: "SQLITE_INTERNAL"
            case SQLITE_PERM: "SQLITE_PERM"
            case SQLITE_ABORT: "SQLITE_ABORT"
            case SQLITE_BUSY: "SQLITE_BUSY"
            case SQLITE_LOCKED: "SQLITE_LOCKED"
            case SQLITE_NOMEM: "SQLITE_NOMEM"
            case SQLITE_READONLY: "SQLITE_READONLY"
            case SQLITE_INTERRUPT: "SQLITE_INTERRUPT"
            case SQLITE_IOERR: "SQLITE_IOERR"
            case SQLITE_CORRUPT: "SQLITE_CORRUPT"
            case SQLITE_NOTFOUND: "SQLITE_NOTFOUND"
            case SQLITE_FULL: "SQLITE_FULL"
            case SQLITE_CANTOPEN: "SQLITE_CANTOPEN"
            case SQLITE_PROTOCOL: "SQLITE_PROTOCOL"
            case SQLITE_SCHEMA: "SQLITE_SCHEMA"
            case SQLITE_TOOBIG: "SQLITE_TOOBIG"
            case SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT"
            case SQLITE_MISMATCH: "SQLITE_MISMATCH"
            case SQLITE_MISUSE: "SQLITE_MISUSE"
            case SQLITE_RANGE: "SQLITE_RANGE"
            case SQLITE_NOTADB: "SQLITE_NOTADB"
            default: "SQLITE_\(rawValue)"
            }
        }

        package var description: String { "\(rawValue) (\(name))" }
    }

    /// The primary result code.
    package var code: Code { Code(rawValue: extendedCode & 0xFF) }
    /// The extended result code, as `sqlite3_extended_errcode` returns it.
    package let extendedCode: Int32
    /// What SQLite (or this layer) said went wrong.
    package let message: String
    /// The statement that failed, when there was one.
    package let sql: String?
    /// The database file the failure happened on, when there was one.
    package let path: String?
    /// The operating system's `errno` of the failure, when SQLite had one (`sqlite3_system_errno`): how an I/O
    /// error on a full disk is told apart from one on a failing disk.
    package var systemErrno: Int32 = 0

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The extended (or primary) result code.
    ///   - message: What went wrong, in a sentence.
    ///   - sql: The statement that failed, if any.
    ///   - path: The database file, if any.
    package init(extendedCode code: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedCode = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// Creates an error from a primary code.
    package init(_ code: Code, message: String, sql: String? = nil, path: String? = nil) {
        self.init(extendedCode: code.rawValue, message: message, sql: sql, path: path)
    }

    /// Whether the disk was full: SQLite said so (`SQLITE_FULL`), or an I/O error's `errno` was `ENOSPC` or `EDQUOT`
    /// (SQLite reports a full disk met while growing its shared memory or writing its log as an I/O error).
    package var isDiskFull: Bool { code == .full || (code == .ioError && isDiskFullErrno(systemErrno)) }

    /// Whether another connection held the lock for longer than the busy timeout (`SQLITE_BUSY`), or a table was
    /// locked by another connection of this process (`SQLITE_LOCKED`): transient, never damage.
    package var isBusy: Bool { code == .busy || code == .locked }

    /// Whether the file itself is damaged or is not a SQLite database at all.
    package var isDamagedFile: Bool { code == .corrupt || code == .notADatabase }

    package var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code.rawValue { text += " [extended \(extendedCode)]" }
        text += ": \(message)"
        if isDiskFull { text += " (the disk is full)" }
        if isBusy { text += " (another connection held the lock past the wait)" }
        if let path { text += " (file: \(path))" }
        if let sql { text += " while executing: \(sql)" }
        return text
    }
}

extension SQLiteError: StorageFailureReporting {}

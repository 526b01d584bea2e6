import PrivateSyncFileSystem

/// A database file that cannot be used: missing, damaged, of another kind, or from a newer build.
///
/// The message always names the file. A file that produced this error has not been written to.
package struct DatabaseFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the file. Numbered from 1 in the order declared; a new kind is added at the end.
    package enum Code: Int, Sendable, Hashable {
        /// The file does not exist and was not to be created.
        case missing = 1
        /// The file is not a SQLite database at all.
        case notADatabase
        /// The file is a SQLite database, but not of the expected kind (its `application_id` differs).
        case foreignDatabase
        /// The file is of the expected kind but damaged: truncated, or pages that fail SQLite's checks.
        case damaged
        /// The file was written by a newer build with a schema this build does not know.
        case newerVersion
        /// The file could not be created.
        case cannotCreate
        /// The file exists but cannot be read (permissions, I/O).
        case unreadable
        /// SQLite failed on the file for another reason (busy beyond the timeout, disk full, I/O).
        case sqlite
        /// The file, its `-shm` or its folder cannot be written, and the command writes.
        case unwritable
    }

    /// What is wrong.
    package let code: Code
    /// The file.
    package let path: String
    /// The specifics, in words.
    package let detail: String
    /// SQLite's error, when SQLite reported it.
    package let sqliteError: SQLiteError?
    /// The `errno` of a failed system call, when one failed (creating the file, say).
    package var systemErrno: Int32 = 0

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What is wrong.
    ///   - path: The file.
    ///   - detail: The specifics.
    package init(_ code: Code, path: String, detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
        self.sqliteError = nil
    }

    /// Wraps an error SQLite reported while opening or checking a file.
    ///
    /// - Parameters:
    ///   - sqlite: SQLite's error.
    ///   - path: The file.
    package init(sqlite: SQLiteError, path: String) {
        switch sqlite.code {
        case .notADatabase: self.code = .notADatabase
        case .corrupt: self.code = .damaged
        case .cannotOpen, .permission: self.code = .unreadable
        default: self.code = .sqlite
        }
        self.path = path
        self.detail = sqlite.message
        self.sqliteError = sqlite
    }

    /// Whether the disk was full (SQLite's error said so, or a system call failed with `ENOSPC` or `EDQUOT`).
    package var isDiskFull: Bool { sqliteError?.isDiskFull ?? isDiskFullErrno(systemErrno) }

    /// Whether SQLite could not take the file's lock in time (another connection held it): the file is not at fault.
    package var isBusy: Bool { sqliteError?.isBusy ?? false }

    package var description: String {
        switch code {
        case .missing: "\(path): the file does not exist"
        case .notADatabase: "\(path) is not a SQLite database (\(detail)); it was left unchanged"
        case .foreignDatabase: "\(path) is not a database of the expected kind (\(detail)); it was left unchanged"
        case .damaged: "\(path) is damaged (\(detail)); it was left unchanged"
        case .newerVersion: "\(path) was written by a newer version (\(detail)); it was left unchanged"
        case .cannotCreate: "\(path) could not be created: \(detail)"
        case .unreadable: "\(path) cannot be read: \(detail)"
        case .unwritable: "\(path) cannot be written: \(detail)"
        case .sqlite: "\(path): \(sqliteError?.description ?? detail)"
        }
    }
}

extension DatabaseFileError: StorageFailureReporting {}

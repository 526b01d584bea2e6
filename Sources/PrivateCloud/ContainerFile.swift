import PrivateSyncSQLite

/// A container database file read directly, without going through an account session: what an audit (or a user
/// with `sqlite3`) sees. Opening is read-only; a damaged or foreign file is refused and left unchanged.
public struct ContainerFile: Sendable {
    /// The file.
    public let path: String
    /// The account the file belongs to, as recorded in it.
    public let account: String
    /// The container the file belongs to, as recorded in it.
    public let containerIdentifier: String
    /// Every record in the file, sorted by identifier.
    public let records: [Record]

    /// Reads a container file.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - verifyingPages: Whether to check every page first (`PRAGMA integrity_check`), so that damage in pages the
    ///     read does not reach is reported too, as an audit wants.
    ///   - verificationMemo: Where checked states are remembered, to check the file once per change; `nil` checks
    ///     it at every read.
    /// - Returns: Its account, container and records.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file, naming it.
    public static func read(
        _ path: String, verifyingPages: Bool = true, verificationMemo: VerificationMemo? = nil
    ) throws -> ContainerFile {
        let storage = try SQLiteDatabaseStorage(
            readingOnly: path, verifyIntegrity: verifyingPages, verificationMemo: verificationMemo)
        let connection = storage.connection
        return try connection.transaction(.deferred) {
            let account = try connection.scalarText("SELECT value FROM meta WHERE key = 'account'") ?? ""
            let container = try connection.scalarText("SELECT value FROM meta WHERE key = 'container_identifier'") ?? ""
            let records = try connection.query(
                """
                SELECT zone_name, record_name, record_type, fields, change_tag, created_at, modified_at, creator,
                    last_modifier
                FROM records ORDER BY zone_name, record_name
                """,
                // Fields that do not decode throw `DatabaseFileError` `damaged`, naming the record.
                decoding: { row in
                    try SQLiteDatabaseStorage.record(
                        row, firstColumn: 2, name: row.text(1), zone: row.text(0), location: path)
                })
            return ContainerFile(path: path, account: account, containerIdentifier: container, records: records)
        }
    }

    /// Checks a container file, page by page, without changing it.
    ///
    /// - Parameter path: The file.
    /// - Throws: `DatabaseFileError` naming the file when it is missing, damaged or foreign.
    public static func verify(_ path: String) throws {
        _ = try SQLiteDatabaseStorage(readingOnly: path, verifyIntegrity: true)
    }

    /// How many records of each type the file holds, without decoding them.
    ///
    /// - Parameter path: The file.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file.
    public static func countsByType(_ path: String) throws -> [String: Int] {
        let storage = try SQLiteDatabaseStorage(readingOnly: path)
        return Dictionary(
            uniqueKeysWithValues: try storage.connection.query(
                "SELECT record_type, count(*) FROM records GROUP BY record_type"
            ) { ($0.text(0), $0.int(1)) })
    }
}

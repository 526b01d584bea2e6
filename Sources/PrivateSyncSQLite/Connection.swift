import CSQLite

/// One connection to a SQLite database file.
///
/// A connection is not thread-safe by itself: its owner serializes access (an actor, or a `Mutex` as
/// ``SerializedConnection`` does). It is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
package final class Connection {
    let handle: OpaquePointer
    /// The file this connection reads and writes (`:memory:` for an in-memory database).
    package let path: String
    private var statementCache: [String: Statement] = [:]
    /// Statements of SQL literals, keyed by the literal's address so that finding one hashes no text.
    private var literalStatementCache = LiteralStatements()

    /// How a database file is opened.
    package enum OpenMode: Sendable {
        /// Reading only; the file must exist.
        case readOnly
        /// Reading and writing; the file must exist.
        case readWrite
        /// Reading and writing; SQLite creates the file when it is missing.
        case readWriteCreate
        /// Reading only a file nobody can be writing (`immutable=1`): SQLite takes no locks and neither reads nor
        /// creates the `-wal` and `-shm` files, so a file (or folder) without write permission is read without
        /// leaving anything behind. Only for a file whose WAL is empty.
        case readOnlyImmutable
    }

    /// Opens a connection.
    ///
    /// - Parameters:
    ///   - path: The database file, or `:memory:`.
    ///   - mode: Whether to read only, read and write, or also create.
    ///   - busyTimeoutMilliseconds: How long a statement waits for another connection's lock before `SQLITE_BUSY`;
    ///     `nil` for the process's default (``defaultBusyTimeoutMilliseconds``, 10 seconds).
    /// - Throws: ``SQLiteError`` with `SQLITE_CANTOPEN` and the path when the file cannot be opened.
    package init(path: String, mode: OpenMode, busyTimeoutMilliseconds: Int32? = nil) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnlyImmutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        let name = mode == .readOnlyImmutable ? Self.immutableURI(path) : path
        _ = Self.configureSQLite
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(name, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the file"
            var error = SQLiteError(extendedCode: rc, message: message, path: path)
            error.systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            if let handle { sqlite3_close_v2(handle) }
            throw error
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds ?? Self.defaultBusyTimeoutMilliseconds)
    }

    /// SQLite's process-wide configuration, applied once before the first connection opens: memory statistics off
    /// (a mutex around every allocation, 1% of the simulator's time in `perf`). Lazy, so it runs exactly once.
    private static let configureSQLite: Void = {
        _ = privatesync_sqlite3_disable_memory_statistics()
    }()

    /// `file:` URI of `path` with `immutable=1`, every byte but unreserved ones and `/` percent-encoded.
    static func immutableURI(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var uri = Array("file:".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.append(byte)
            default: uri += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: uri, as: UTF8.self) + "?immutable=1"
    }

    deinit {
        statementCache.removeAll()
        literalStatementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Running SQL

    /// Runs one or more statements that return no rows of interest.
    ///
    /// - Parameter sql: The statements, separated by semicolons.
    /// - Throws: ``SQLiteError`` naming the statement and the file.
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            var error = SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, path: path)
            error.systemErrno = sqlite3_system_errno(handle)
            throw error
        }
    }

    /// Prepares a statement that the caller owns.
    ///
    /// - Parameter sql: One SQL statement.
    /// - Returns: The prepared statement.
    /// - Throws: ``SQLiteError`` when the SQL does not compile against this database.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: false)
    }

    /// A prepared statement kept for reuse, reset and unbound.
    ///
    /// Hot paths use this so that each SQL text is compiled once per connection.
    ///
    /// - Parameter sql: One SQL statement.
    /// - Returns: The cached statement, ready to bind.
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// A prepared statement of a SQL literal, kept for reuse, reset and unbound.
    ///
    /// The same as ``cachedStatement(_:)`` without hashing the SQL text on every call, for statements that run once
    /// per record (`make bench`, `container_save_ratio`).
    ///
    /// - Parameter sql: One SQL statement, as a literal.
    /// - Returns: The cached statement, ready to bind.
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(literal sql: StaticString) throws(SQLiteError) -> Statement {
        let key = UnsafeRawPointer(sql.utf8Start)
        if let statement = literalStatementCache.statement(for: key) {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql.description, persistent: true)
        literalStatementCache.insert(statement, for: key)
        return statement
    }

    /// Runs a query and maps each row.
    ///
    /// - Parameters:
    ///   - sql: The query.
    ///   - values: Values bound to its parameters, in order.
    ///   - row: Maps the current row of the statement to a value.
    /// - Returns: The mapped rows.
    /// - Throws: ``SQLiteError`` on failure.
    package func query<T>(
        _ sql: String, _ values: SQLiteValue..., row: (Statement) throws(SQLiteError) -> T
    )
        throws(SQLiteError) -> [T]
    {
        try rows(of: cachedStatement(sql), values, row) { $0 }
    }

    /// Runs a query and maps each row with a mapping that can fail in its own domain (a stored value the caller's
    /// format does not decode): its error is thrown as it is, not as a SQLite error.
    ///
    /// - Parameters:
    ///   - sql: The query.
    ///   - values: Values bound to its parameters, in order.
    ///   - row: Maps the current row of the statement to a value.
    /// - Returns: The mapped rows.
    /// - Throws: ``SQLiteError`` when SQLite fails, or what `row` throws.
    package func query<T>(_ sql: String, _ values: SQLiteValue..., decoding row: (Statement) throws -> T) throws -> [T]
    {
        try rows(of: cachedStatement(sql), values, row) { $0 }
    }

    /// Binds `values` to `statement`, steps it and maps each row, resetting it after; SQLite's errors are thrown as
    /// `sqlite` makes them, of the mapping's error type.
    private func rows<T, E: Error>(
        of statement: Statement, _ values: [SQLiteValue], _ row: (Statement) throws(E) -> T,
        sqlite: (SQLiteError) -> E
    ) throws(E) -> [T] {
        defer { statement.reset() }
        var rows: [T] = []
        do throws(SQLiteError) {
            try statement.bind(values)
        } catch {
            throw sqlite(error)
        }
        while true {
            let more: Bool
            do throws(SQLiteError) {
                more = try statement.step()
            } catch {
                throw sqlite(error)
            }
            guard more else { return rows }
            rows.append(try row(statement))
        }
    }

    /// Runs a statement with bound values, ignoring rows.
    ///
    /// - Parameters:
    ///   - sql: The statement.
    ///   - values: Values bound to its parameters, in order.
    /// - Throws: ``SQLiteError`` on failure.
    package func run(_ sql: String, _ values: SQLiteValue...) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        try statement.run()
    }

    /// The first column of the first row of a query, as an integer, or `nil` when there is no row.
    package func scalarInt(_ sql: String, _ values: SQLiteValue...) throws(SQLiteError) -> Int64? {
        try firstValue(of: cachedStatement(sql), values) { $0.int64(0) }
    }

    /// The first column of the first row of a query, as text, or `nil` when there is no row.
    package func scalarText(_ sql: String, _ values: SQLiteValue...) throws(SQLiteError) -> String? {
        try firstValue(of: cachedStatement(sql), values) { $0.text(0) }
    }

    // MARK: Running SQL literals

    /// ``query(_:_:row:)`` for SQL written as a literal: its statement is found by the literal's address, not by
    /// hashing its text (see ``cachedStatement(literal:)``).
    package func query<T>(
        literal sql: StaticString, _ values: SQLiteValue..., row: (Statement) throws(SQLiteError) -> T
    )
        throws(SQLiteError) -> [T]
    {
        try rows(of: cachedStatement(literal: sql), values, row) { $0 }
    }

    /// ``query(_:_:decoding:)`` for SQL written as a literal.
    package func query<T>(
        literal sql: StaticString, _ values: SQLiteValue..., decoding row: (Statement) throws -> T
    ) throws -> [T] {
        try rows(of: cachedStatement(literal: sql), values, row) { $0 }
    }

    /// ``run(_:_:)`` for SQL written as a literal.
    package func run(literal sql: StaticString, _ values: SQLiteValue...) throws(SQLiteError) {
        let statement = try cachedStatement(literal: sql)
        try statement.bind(values)
        try statement.run()
    }

    /// ``scalarInt(_:_:)`` for SQL written as a literal.
    package func scalarInt(literal sql: StaticString, _ values: SQLiteValue...) throws(SQLiteError) -> Int64? {
        try firstValue(of: cachedStatement(literal: sql), values) { $0.int64(0) }
    }

    /// ``scalarText(_:_:)`` for SQL written as a literal.
    package func scalarText(literal sql: StaticString, _ values: SQLiteValue...) throws(SQLiteError) -> String? {
        try firstValue(of: cachedStatement(literal: sql), values) { $0.text(0) }
    }

    /// The first column of the first row `statement` gives with `values` bound, read by `read`, or `nil` when there
    /// is no row or the value is NULL; the statement is reset after.
    private func firstValue<Value>(
        of statement: Statement, _ values: [SQLiteValue], _ read: (Statement) -> Value
    ) throws(SQLiteError) -> Value? {
        defer { statement.reset() }
        try statement.bind(values)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return read(statement)
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    package enum TransactionKind: String, Sendable {
        /// Takes a read lock at the first read and a write lock at the first write.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so two writers never deadlock upgrading read locks.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// - Parameters:
    ///   - kind: `immediate` (the default) for anything that writes.
    ///   - body: The work; it may throw any error, which is rethrown after the rollback.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` threw, or ``SQLiteError`` when beginning or committing fails.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        // Prepared once per connection: `execute` would compile the SQL again for every transaction, which was a
        // tenth of a simulated run (`make bench`, `simulated_speedup`).
        switch kind {
        case .deferred: try cachedStatement(literal: "BEGIN DEFERRED").run()
        case .immediate: try cachedStatement(literal: "BEGIN IMMEDIATE").run()
        }
        let value: T
        do {
            value = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try cachedStatement(literal: "COMMIT").run()
        } catch {
            rollbackQuietly()
            throw error
        }
        return value
    }

    /// Whether a transaction is open on this connection.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func rollbackQuietly() {
        if isInTransaction { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    // MARK: Facts

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// The version of the database's content as this connection reads it, which changes whenever a transaction
    /// commits a change to it: through another connection, in this process or another (`PRAGMA data_version`), or
    /// through this one (every row it ever inserted, updated or deleted, `sqlite3_total_changes64`, which also
    /// counts a change rolled back, so errs towards a new version).
    ///
    /// Read it inside a transaction: it then names the snapshot the transaction reads.
    package func contentVersion() throws(SQLiteError) -> ContentVersion {
        let others = try scalarInt(literal: "PRAGMA data_version") ?? 0
        return ContentVersion(others: others, own: sqlite3_total_changes64(handle))
    }

    /// Runs `PRAGMA integrity_check` and returns its findings; empty when the file is sound.
    ///
    /// Besides every page (what `quick_check` reads), it compares each index with its table: an index missing rows
    /// answers queries that use it with fewer rows and no error, which `quick_check` does not see.
    ///
    /// - Throws: ``SQLiteError`` when the check cannot run (for example, the file is not a database).
    package func integrityCheckProblems() throws(SQLiteError) -> [String] {
        let rows = try query("PRAGMA integrity_check") { $0.text(0) }
        return rows == ["ok"] ? [] : rows
    }

    /// Runs `PRAGMA quick_check` (every page, no comparison of indexes with tables) and returns its findings; empty
    /// when it finds nothing. For measuring what ``integrityCheckProblems()`` adds.
    ///
    /// - Throws: ``SQLiteError`` when the check cannot run.
    package func quickCheckProblems() throws(SQLiteError) -> [String] {
        let rows = try query("PRAGMA quick_check") { $0.text(0) }
        return rows == ["ok"] ? [] : rows
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
        var error = SQLiteError(
            extendedCode: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
        error.systemErrno = sqlite3_system_errno(handle)
        return error
    }
}

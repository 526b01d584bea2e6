import CSQLite

/// A prepared statement: bind values, step through rows, read columns.
///
/// A statement belongs to the ``Connection`` that prepared it and, like it, is used by one thread at a time.
/// Cached statements (``Connection/cachedStatement(_:)``) are reset and unbound before they are handed out again.
package final class Statement {
    let handle: OpaquePointer
    /// The SQL text the statement was prepared from.
    package let sql: String
    unowned let connection: Connection

    /// The database file the statement runs against (`:memory:` for none), for messages.
    package var path: String { connection.path }

    init(connection: Connection, sql: String, persistent: Bool) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            throw connection.error(rc, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
        scratch?.deallocate()
    }

    /// The value SQLite copies when it must keep bound text or bytes past the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Bound text and bytes are copied here, and bound without SQLite copying them again: SQLite would otherwise
    /// allocate a copy of every value bound and free it at the next reset, which was a tenth of a container save
    /// (`make bench`, `container_save_ratio`). The bindings point into it until ``reset()`` clears them; only then
    /// is it reused. A value that does not fit is bound as before, copied by SQLite.
    private var scratch: UnsafeMutableRawPointer?
    private var scratchUsed = 0
    private static let scratchCapacity = 4096

    /// Binds `bytes` as text or a blob at `index`, copied into the scratch space when they fit.
    private func bindCopying(_ bytes: UnsafeRawBufferPointer, at index: Int32, blob: Bool) -> Int32 {
        let count = bytes.count
        guard scratchUsed + count <= Self.scratchCapacity else {
            // A zero-length value must not be bound from a null pointer, which binds NULL.
            let source = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            return blob
                ? sqlite3_bind_blob(handle, index, source, Int32(count), Self.transient)
                : sqlite3_bind_text(
                    handle, index, source.assumingMemoryBound(to: CChar.self), Int32(count), Self.transient)
        }
        let base: UnsafeMutableRawPointer
        if let scratch {
            base = scratch
        } else {
            base = .allocate(byteCount: Self.scratchCapacity, alignment: 8)
            scratch = base
        }
        let destination = base + scratchUsed
        if let source = bytes.baseAddress, count > 0 { destination.copyMemory(from: source, byteCount: count) }
        scratchUsed += count
        return blob
            ? sqlite3_bind_blob(handle, index, destination, Int32(count), nil)
            : sqlite3_bind_text(handle, index, destination.assumingMemoryBound(to: CChar.self), Int32(count), nil)
    }

    // MARK: Binding

    /// Binds a value to a 1-based parameter index.
    ///
    /// - Parameters:
    ///   - value: The value; `nil` binds NULL.
    ///   - index: The parameter's 1-based index.
    /// - Throws: ``SQLiteError`` when the index is out of range or SQLite refuses the value.
    package func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        let rc = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(rc)
    }

    /// Binds an integer.
    package func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(Int64.init), at: index)
    }

    /// Binds a double.
    package func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        let rc = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(rc)
    }

    /// Binds text.
    package func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard var text = value else { return try check(sqlite3_bind_null(handle, index)) }
        let rc = text.withUTF8 { bindCopying(UnsafeRawBufferPointer($0), at: index, blob: false) }
        try check(rc)
    }

    /// Binds text given as UTF-8 bytes (no terminator needed); an empty array binds "", not NULL.
    package func bindText(_ utf8: [UInt8], at index: Int32) throws(SQLiteError) {
        let rc = utf8.withUnsafeBytes { bindCopying($0, at: index, blob: false) }
        try check(rc)
    }

    /// Binds text written straight into memory that SQLite then owns and frees: a value of a megabyte (a record's
    /// encoded fields) is neither copied out of an array nor copied again by SQLite (`make bench`,
    /// `simulated_speedup`).
    ///
    /// `write` is given memory and its size, writes what fits, and returns how many bytes the text takes; when that
    /// is more than it was given, it is called once more with exactly that much.
    ///
    /// - Parameters:
    ///   - index: The parameter's 1-based index.
    ///   - estimate: About the text's size in bytes.
    ///   - write: Writes the UTF-8 text; returns its full size.
    /// - Throws: ``SQLiteError`` when memory cannot be had or SQLite refuses the value.
    package func bindText(
        at index: Int32, estimate: Int, writing write: (UnsafeMutablePointer<UInt8>, Int) -> Int
    ) throws(SQLiteError) {
        var capacity = max(estimate, 1)
        var memory = try allocate(capacity)
        var count = write(memory, capacity)
        if count > capacity {
            sqlite3_free(memory)
            capacity = count
            memory = try allocate(capacity)
            count = write(memory, capacity)
            // SQLite would read past the memory: the writer broke its promise to need no more than it said.
            precondition(count <= capacity, "bindText: the text grew from \(capacity) to \(count) bytes between passes")
        }
        // SQLite calls the destructor once it no longer needs the text, and also when binding fails.
        let rc = sqlite3_bind_text64(
            handle, index, UnsafeRawPointer(memory).assumingMemoryBound(to: CChar.self), UInt64(count), sqlite3_free,
            UInt8(SQLITE_UTF8))
        try check(rc)
    }

    /// `count` bytes from SQLite's allocator, which ``bindText(at:estimate:writing:)`` hands to SQLite to free.
    private func allocate(_ count: Int) throws(SQLiteError) -> UnsafeMutablePointer<UInt8> {
        guard let memory = sqlite3_malloc64(UInt64(count)) else {
            throw SQLiteError(
                extendedCode: SQLITE_NOMEM, message: "out of memory for \(count) bytes", sql: sql, path: path)
        }
        return memory.assumingMemoryBound(to: UInt8.self)
    }

    /// Binds a blob; an empty array binds a zero-length blob, not NULL.
    package func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        let rc = value.withUnsafeBytes { bindCopying($0, at: index, blob: true) }
        try check(rc)
    }

    /// Binds NULL.
    package func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds several values to parameters 1, 2, ….
    ///
    /// - Parameter values: The values, in parameter order.
    /// - Throws: ``SQLiteError`` when a value cannot be bound.
    package func bind(_ values: SQLiteValue...) throws(SQLiteError) {
        try bind(values)
    }

    /// Binds an array of values to parameters 1, 2, ….
    ///
    /// - Parameter values: The values, in parameter order.
    /// - Throws: ``SQLiteError`` when a value cannot be bound.
    package func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: try bindNull(at: index)
            case .integer(let v): try bind(v, at: index)
            case .real(let v): try bind(v, at: index)
            case .text(let v): try bind(v, at: index)
            case .blob(let v): try bind(v, at: index)
            }
        }
    }

    /// Clears bindings and resets the statement so it can run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        scratchUsed = 0
    }

    // MARK: Stepping

    /// Advances to the next row.
    ///
    /// - Returns: `true` when a row is available, `false` when the statement is done.
    /// - Throws: ``SQLiteError`` when the step fails (a constraint, a busy database, a damaged file).
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring rows, then resets it.
    package func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    // MARK: Columns

    /// Column `index` (0-based) of the current row, as the value SQLite stored.
    package func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }

    /// Whether column `index` (0-based) of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` of the current row as an integer (0 when NULL).
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` of the current row as an `Int` (0 when NULL).
    package func int(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// Column `index` of the current row as a double (0 when NULL).
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` of the current row as text (empty when NULL).
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as text, or `nil` when NULL.
    package func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` of the current row as an integer, or `nil` when NULL.
    package func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : int64(index)
    }

    /// Column `index` of the current row as bytes (empty when NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        withBytes(index) { Array($0) }
    }

    /// Lends the bytes of column `index` (text or blob) without copying them.
    ///
    /// - Parameters:
    ///   - index: The 0-based column index.
    ///   - body: Reads the bytes; they are valid only during the call.
    /// - Returns: What `body` returns.
    package func withBytes<R, E: Error>(
        _ index: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        // sqlite3_column_blob works for text columns too, and column_bytes must be read after it.
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : pointer, count: count))
    }

    private func check(_ rc: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }
}

/// A value SQLite stores: NULL, an integer, a real, text or a blob.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

import PrivateSyncSQLite

/// The range check of every value a store file holds that the package computes with: the sync state, the pending
/// changes' counters and every record's dates. A store is checked when it is opened, before anything is read or
/// written, so that a hand-edited or damaged value is refused (naming the file) rather than trapping in arithmetic
/// later, and so that a bad value can never be acted on or copied elsewhere.
enum StoreStateCheck {
    /// The largest magnitude of a date, in seconds since 2001: about 317 years either way. Every date the package
    /// writes is near the clock's now; anything beyond this is damage, and within it no date arithmetic or
    /// formatting can overflow.
    static let dateLimit: Double = 1e10
    /// The largest counter (totals, sequence numbers, revisions): 2^53, exact as a Double, and far from overflow
    /// when added to.
    static let counterLimit: Int64 = 1 << 53
    /// The most consecutive failures the backoff counts; the engine's loop over them stays short.
    static let retryAttemptLimit: Int64 = 1_000_000
    /// What a `VerificationMemo` calls this check.
    static let memoKind = "store-values"

    /// What a sync state key must hold.
    enum Shape {
        case flag
        case text
        case bytes
        case date
        case counter
        case retryAttempt
        case revision
        case batchSize
    }

    /// The shape of each key of the sync engine's state (``SyncStateKey``), by the name files hold. A key missing
    /// here can be neither written (`SyncTransaction.writeSyncState(_:)`) nor opened.
    static let engineShapes: [String: Shape] = Dictionary(
        uniqueKeysWithValues: SyncStateKey.allCases.map { ($0.rawValue, $0.shape) })

    /// The shape of each key a store holds: the store's own revision counter, and the engine's keys; any other key
    /// is damage.
    static func shape(of key: String) -> Shape? {
        key == "pending_revision" ? .revision : engineShapes[key]
    }

    /// Why `value` cannot be held under a key of `shape`, or `nil` when it can.
    static func problem(with value: SQLiteValue, shape: Shape) -> String? {
        switch (shape, value) {
        case (.flag, .integer(let flag)): return flag == 0 || flag == 1 ? nil : "is \(flag), not 0 or 1"
        case (.text, .text(let text)): return text.utf8.count <= 65_536 ? nil : "is longer than 64 KiB"
        case (.bytes, .blob(let bytes)): return bytes.count <= 1 << 20 ? nil : "is longer than 1 MiB"
        case (.date, .real(let seconds)): return dateProblem(seconds)
        case (.date, .integer(let seconds)): return dateProblem(Double(seconds))
        case (.counter, .integer(let count)):
            return (0...counterLimit).contains(count) ? nil : "is \(count), out of range"
        case (.retryAttempt, .integer(let count)):
            return (0...retryAttemptLimit).contains(count) ? nil : "is \(count), out of range"
        case (.batchSize, .integer(let size)):
            return (1...400).contains(size) ? nil : "is \(size), not a batch size from 1 to 400"
        case (.revision, .integer(let count)):
            return (1...counterLimit).contains(count) ? nil : "is \(count), out of range"
        default: return "holds a value of the wrong type (\(value.typeName))"
        }
    }

    /// Why a date of `seconds` since 2001 is out of range, or `nil`.
    static func dateProblem(_ seconds: Double) -> String? {
        seconds.isFinite && abs(seconds) <= dateLimit
            ? nil : "is \(seconds) seconds since 2001, out of range (at most \(dateLimit) either way)"
    }

    /// Whether `value` is a date a record may hold: a number of seconds since 2001 within ``dateLimit``.
    static func isDate(_ value: SQLiteValue) -> Bool {
        switch value {
        case .real(let seconds): dateProblem(seconds) == nil
        case .integer(let seconds): dateProblem(Double(seconds)) == nil
        default: false
        }
    }

    /// Whether `value` is a date or NULL (a record the server has not confirmed has no server dates).
    static func isOptionalDate(_ value: SQLiteValue) -> Bool {
        if case .null = value { return true }
        return isDate(value)
    }

    /// Whether `value` is a pending change's sequence number or revision: an integer from 0 to ``counterLimit``.
    static func isCounter(_ value: SQLiteValue) -> Bool {
        if case .integer(let count) = value { return (0...counterLimit).contains(count) }
        return false
    }

    /// The record name in column 0 of `row`, for a message: at most 80 characters, or "with no name" for NULL (a
    /// rowid table's text primary key allows it, and a hand edit can write it).
    static func name(_ row: Statement) -> String {
        row.isNull(0) ? "with no name" : String(row.text(0).prefix(80))
    }

    /// The first problem with the store open on `connection`, or `nil` when every value is in range.
    ///
    /// - Throws: ``SQLiteError`` when the store cannot be read.
    static func firstProblem(_ connection: Connection) throws(SQLiteError) -> String? {
        let rows = try connection.query("SELECT key, value FROM sync_state") { ($0.value(0), $0.value(1)) }
        for (key, value) in rows {
            guard case .text(let name) = key, let shape = shape(of: name) else {
                return "sync_state holds an unknown key \(key.debugText)"
            }
            if case .null = value { return "sync_state \(name) is null" }
            if let problem = problem(with: value, shape: shape) { return "sync_state \(name) \(problem)" }
        }
        // The rows are read with the plainest SQL and judged here: the check runs at every opening of a store, on a
        // new connection, where compiling the range conditions as SQL cost more than the scan of a small store
        // (about 200,000 instructions an opening; `make bench`, `simulated_speedup`). `typeof` stays in SQL: it reads
        // a column's type from the row's header, never the value, which for `fields` can be a megabyte.
        let records = try connection.prepare(
            """
            SELECT record_name, typeof(record_name) = 'text' AND typeof(record_type) = 'text'
                AND typeof(fields) = 'text' AND typeof(field_versions) = 'text',
                created_at, modified_at, server_created_at, server_modified_at
            FROM records
            """)
        while try records.step() {
            let columnsAreText = records.int64(1) == 1
            let datesInRange =
                isDate(records.value(2)) && isDate(records.value(3))
                && isOptionalDate(records.value(4)) && isOptionalDate(records.value(5))
            if !(columnsAreText && datesInRange) {
                return "the record \(name(records)) holds a date or column out of range"
            }
        }
        let changes = try connection.prepare(
            """
            SELECT record_name, typeof(record_name) = 'text' AND typeof(record_type) = 'text', queued_seq, revision
            FROM pending_changes
            """)
        while try changes.step() {
            if !(changes.int64(1) == 1 && isCounter(changes.value(2)) && isCounter(changes.value(3))) {
                return "the pending change of \(name(changes)) holds a number out of range"
            }
        }
        return nil
    }
}

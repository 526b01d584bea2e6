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

    /// The shape of each key of the sync engine's state. The keys and what they mean are the engine's (PrivateSync's
    /// `EngineState.Key`, with the names existing store files hold); the store checks their values by name, here,
    /// because it checks every file it opens before anything reads it. A key missing here can be neither written
    /// (`SyncTransaction.writeSyncState(_:)`) nor opened.
    static let engineShapes: [String: Shape] = [
        "bound_user": .text, "zone_ready": .flag, "zone_token": .bytes, "database_token": .bytes,
        "reconcile_on_full_fetch": .flag, "requeue_on_full_fetch": .flag, "initial_fetch_done": .flag,
        "pause_reason": .text, "reupload_consent": .counter, "deletions_learned": .counter, "last_outcome": .text,
        "last_error": .text, "last_attempt_at": .date, "next_attempt_at": .date, "retry_attempt": .retryAttempt,
        "sent_saves": .counter, "sent_deletes": .counter, "fetched_modifications": .counter,
        "fetched_deletions": .counter, "conflicts_resolved": .counter, "epoch": .counter, "batch_size": .batchSize,
        "batch_streak": .counter,
    ]

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
        let limit = dateLimit
        let badRecord = try connection.scalarText(
            """
            SELECT record_name FROM records WHERE
                typeof(created_at) NOT IN ('real', 'integer') OR NOT abs(created_at) <= \(limit)
                OR typeof(modified_at) NOT IN ('real', 'integer') OR NOT abs(modified_at) <= \(limit)
                OR (server_created_at IS NOT NULL AND (typeof(server_created_at) NOT IN ('real', 'integer')
                    OR NOT abs(server_created_at) <= \(limit)))
                OR (server_modified_at IS NOT NULL AND (typeof(server_modified_at) NOT IN ('real', 'integer')
                    OR NOT abs(server_modified_at) <= \(limit)))
                OR typeof(record_name) <> 'text' OR typeof(record_type) <> 'text' OR typeof(fields) <> 'text'
                OR typeof(field_versions) <> 'text'
            LIMIT 1
            """)
        if let badRecord { return "the record \(badRecord.prefix(80)) holds a date or column out of range" }
        let badChange = try connection.scalarText(
            """
            SELECT record_name FROM pending_changes WHERE
                typeof(queued_seq) <> 'integer' OR queued_seq < 0 OR queued_seq > \(counterLimit)
                OR typeof(revision) <> 'integer' OR revision < 0 OR revision > \(counterLimit)
                OR typeof(record_name) <> 'text' OR typeof(record_type) <> 'text'
            LIMIT 1
            """)
        if let badChange { return "the pending change of \(badChange.prefix(80)) holds a number out of range" }
        return nil
    }
}

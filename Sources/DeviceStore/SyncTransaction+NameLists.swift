import PrivateSyncSQLite

extension SyncTransaction {
    /// The set of record names the engine's state keeps under `key` (``SyncStateValue/nameList(_:)``), read alone:
    /// one row, not the whole state.
    ///
    /// - Parameter key: A key whose value is a set of names.
    /// - Returns: The names; none when the key has no row.
    /// - Throws: ``StoreError`` `damagedFile` for a value of another shape under the key, or what SQLite throws.
    package func names(inListAt key: SyncStateKey) throws -> Set<String> {
        try text(at: key, shaped: "list of names").map(SyncStateValue.names(inList:)) ?? []
    }

    /// The text the engine's state keeps under `key`, read alone: one row, not the whole state.
    ///
    /// - Parameters:
    ///   - key: A key whose value is text.
    ///   - shape: What the text is, in words, for the error about a value of another kind.
    /// - Returns: The text; `nil` when the key has no row.
    /// - Throws: ``StoreError`` `damagedFile` for a value that is not text, or what SQLite throws.
    package func text(at key: SyncStateKey, shaped shape: String) throws -> String? {
        let stored = try connection.query(
            literal: "SELECT value FROM sync_state WHERE key = ?", .text(key.rawValue), row: { $0.value(0) })
        guard let value = stored.first, value != .null else { return nil }
        guard case .text(let text) = value else {
            throw StoreError(
                .damagedFile,
                "\(connection.path) is damaged: sync_state \(key.rawValue) is no \(shape); it was left unchanged")
        }
        return text
    }

    /// Changes the set of record names kept under `key`, in this transaction; a set the change leaves as it was is
    /// left unwritten.
    ///
    /// - Parameters:
    ///   - key: A key whose value is a set of names.
    ///   - change: Changes the names.
    /// - Throws: ``StoreError`` `damagedFile` for a value of another shape under the key, or what SQLite throws.
    package func updateNames(inListAt key: SyncStateKey, _ change: (inout Set<String>) -> Void) throws {
        let before = try names(inListAt: key)
        var names = before
        change(&names)
        guard names != before else { return }
        try writeSyncState([(key.rawValue, SyncStateValue.nameList(names))])
    }

    /// Removes a record name from the set of names kept under `key`, in this transaction.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - key: A key whose value is a set of names.
    /// - Throws: What ``updateNames(inListAt:_:)`` throws.
    package func removeName(_ name: String, fromListAt key: SyncStateKey) throws {
        try updateNames(inListAt: key) { $0.remove(name) }
    }
}

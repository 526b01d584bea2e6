import PrivateSyncSQLite

extension SyncTransaction {
    /// Removes a record name from a set of names the engine's state keeps under `key`
    /// (``SyncStateValue/nameList(_:)``), in this transaction; a set that does not hold it is left unwritten.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - key: A key whose value is a set of names.
    /// - Throws: ``StoreError`` `damagedFile` for a value of another shape under the key, or what SQLite throws.
    package func removeName(_ name: String, fromListAt key: SyncStateKey) throws {
        let stored = try connection.query(
            literal: "SELECT value FROM sync_state WHERE key = ?", .text(key.rawValue), row: { $0.value(0) })
        guard let value = stored.first, value != .null else { return }
        guard case .text(let text) = value else {
            throw StoreError(
                .damagedFile,
                "\(connection.path) is damaged: sync_state \(key.rawValue) is no list of names; it was left unchanged")
        }
        var names = SyncStateValue.names(inList: text)
        guard names.remove(name) != nil else { return }
        try writeSyncState([(key.rawValue, SyncStateValue.nameList(names))])
    }
}

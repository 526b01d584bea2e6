package import DeviceStore

extension SyncTransaction {
    /// The records fetched with a value this device could not take (``EngineState/fetchedRecordProblems``), read
    /// alone: one row, not the whole state.
    ///
    /// - Returns: What was wrong with each, by name; none when the key has no row.
    /// - Throws: `StoreError` `damagedFile` for a value that is no such list (a hand edit: refused, as the app's
    ///   engine refuses it, and never written over), or what SQLite throws.
    package func fetchedRecordProblems() throws -> [String: String] {
        guard let text = try text(at: .fetchedRecordProblems, shaped: "list of refused records") else { return [:] }
        guard let problems = EngineState.fetchedRecordProblems(decoding: text) else {
            throw StoreError(
                .damagedFile,
                "\(storePath) is damaged: sync_state \(SyncStateKey.fetchedRecordProblems.rawValue) is no list of "
                    + "refused records; it was left unchanged")
        }
        return problems
    }

    /// Changes the list of records fetched with a value this device could not take, in this transaction; a list the
    /// change leaves as it was is left unwritten.
    ///
    /// - Parameter change: Changes the list (``EngineState/note(_:of:in:)`` adds to it within its bounds).
    /// - Throws: What ``fetchedRecordProblems()`` throws, or what the store throws when it cannot be written.
    package func updateFetchedRecordProblems(_ change: (inout [String: String]) -> Void) throws {
        let before = try fetchedRecordProblems()
        var problems = before
        change(&problems)
        guard problems != before else { return }
        try writeSyncState([
            (
                SyncStateKey.fetchedRecordProblems.rawValue,
                problems.isEmpty ? nil : .text(EngineState.encoded(fetchedRecordProblems: problems))
            )
        ])
    }
}

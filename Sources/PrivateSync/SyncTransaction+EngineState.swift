import DeviceStore

extension SyncTransaction {
    /// The engine's state as this transaction sees it, read in one query.
    ///
    /// - Returns: The state.
    /// - Throws: `StoreError` `damagedFile`, naming the store, for a value the engine never writes; or when the store
    ///   cannot be read.
    package func engineState() throws -> EngineState {
        try EngineState(values: syncStateValues(), store: storePath)
    }

    /// Reads the engine's state, lets `body` change it, and writes the fields it changed (only those) in this
    /// transaction, with whatever else the transaction writes.
    ///
    /// - Parameter body: Changes the state; what it throws rolls the whole transaction back.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; `StoreError` `invalidValue` for a value out of its field's range (never
    ///   written), or when the store cannot be read or written.
    @discardableResult
    package func updateEngineState<T>(_ body: (inout EngineState) throws -> T) throws -> T {
        let original = try engineState()
        var state = original
        let result = try body(&state)
        try save(state, over: original)
        return result
    }

    /// Writes the fields of `state` that differ from `original`.
    ///
    /// - Parameters:
    ///   - state: The state to keep.
    ///   - original: The state as this transaction read it.
    /// - Throws: `StoreError` `invalidValue` for a value out of its field's range (never written), or when the
    ///   store cannot be written.
    package func save(_ state: EngineState, over original: EngineState) throws {
        let changes = state.changes(from: original)
        if !changes.isEmpty { try writeSyncState(changes) }
    }
}

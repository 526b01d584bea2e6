import DeviceStore

extension SyncTransaction {
    /// The engine's state as this transaction sees it, read in one query.
    ///
    /// - Parameter unknownText: How to read a pause reason or an outcome the engine never writes: the engine reads
    ///   them as unset (its next write replaces them), the status refuses them.
    /// - Returns: The state.
    /// - Throws: `StoreError` `damagedFile`, naming the store, for a value of another type than its field's (or an
    ///   unknown pause reason or outcome, when refused); or when the store cannot be read.
    package func engineState(unknownText: EngineState.UnknownText = .readAsUnset) throws -> EngineState {
        try EngineState(values: syncStateValues(), store: storePath, unknownText: unknownText)
    }

    /// Reads the engine's state, lets `body` change it, and writes the fields whose stored value it changed (only
    /// those) in this transaction, with whatever else the transaction writes.
    ///
    /// - Parameter body: Changes the state; what it throws rolls the whole transaction back.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; `StoreError` `invalidValue` for a value out of its field's range (never
    ///   written), `damagedFile` for a value of another type than its field's, or when the store cannot be read or
    ///   written.
    @discardableResult
    package func updateEngineState<T>(_ body: (inout EngineState) throws -> T) throws -> T {
        let stored = try syncStateValues()
        var state = try EngineState(values: stored, store: storePath, unknownText: .readAsUnset)
        let result = try body(&state)
        let changes = state.changes(from: stored)
        if !changes.isEmpty { try writeSyncState(changes) }
        return result
    }
}

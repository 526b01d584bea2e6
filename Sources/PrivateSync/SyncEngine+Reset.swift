public import DeviceStore
import PrivateCloud

extension SyncEngine {
    /// Drops the engine's bookkeeping and keeps the data: tokens, the account binding, the cached server versions,
    /// the retry schedule and the batch size go; records, pending changes, a pause the user must end and the
    /// user's consent stay.
    ///
    /// The next cycle binds to the signed-in account, fetches everything from the start and merges it with what the
    /// device holds (records are keyed by name, so nothing is duplicated); at the end of that fetch every record the
    /// server did not return, and that waits for nothing, is queued to be saved, so nothing is lost. A cycle in
    /// flight stops (a new epoch). The price of forgetting: a record another device deleted is uploaded again, and a
    /// deletion of the app's iCloud data that this device had not yet seen is not seen.
    ///
    /// - Parameter store: The user-created store.
    /// - Throws: `StoreError` when the store cannot be written.
    public static func resetBookkeeping(of store: RecordStore<UserCreated>) throws(StoreError) {
        try store.syncTransaction { transaction in
            try transaction.updateEngineState { state in state = state.afterReset() }
            try transaction.clearServerFields()
            try transaction.clearSeenRecords()
        }
    }
}

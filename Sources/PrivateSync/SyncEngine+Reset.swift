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
    /// A store bound to another account than the one signed in is not reset: the next cycle would bind it to the
    /// account signed in now, and the first account's unsent changes would be hidden from every count (they may go
    /// to no other account) while the status read "everything you wrote is in your iCloud". Signing back in, or
    /// starting afresh, is the way out of that pause.
    ///
    /// - Parameters:
    ///   - store: The user-created store.
    ///   - signedIn: The account signed in now, if any; `nil` when the caller has no account to compare with.
    /// - Throws: `StoreError` when the store cannot be written, or `invalidValue` when it is bound to another account
    ///   than `signedIn` (nothing is changed).
    public static func resetBookkeeping(
        of store: RecordStore<UserCreated>, signedIn: UserRecordID? = nil
    ) throws(StoreError) {
        try store.syncTransaction { transaction in
            try transaction.updateEngineState { state in
                if let bound = state.boundUser, let signedIn, bound != signedIn {
                    throw StoreError(
                        .invalidValue,
                        "the device's data belongs to another iCloud account than the one signed in: sign back into it, "
                            + "or start afresh (account start-fresh); nothing was reset")
                }
                state = state.afterReset()
            }
            try transaction.clearServerFields()
            try transaction.clearSeenRecords()
        }
    }
}

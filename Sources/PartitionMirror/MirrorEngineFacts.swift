public import DeviceStore
public import PrivateSync

/// The status's engine facts of a device whose build is CKSyncEngine's delegate: read from the mirror's bookkeeping
/// file (its last whole version: it is written by renaming a new file over the old) and the store, in any process,
/// while a mirror runs in another or none does.
public struct MirrorEngineFacts: DelegateEngineFacts {
    /// Reads the mirror's facts from the files.
    public init() {}

    /// Puts what the mirror knows into `facts` (``PartitionMirror/status(syncWanted:accountStatus:)`` says what each
    /// means), with the account signed in now as the device says it; a device whose mirror never ran reads as one
    /// whose first sync has not run.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - store: Its user-created store.
    ///   - facts: The launch's facts.
    /// - Throws: `StoreError` `damagedFile` for a bookkeeping file that cannot be read, or when the store cannot be
    ///   read.
    public func readEngineFacts(
        of device: SimulatedDevice, store: RecordStore<UserCreated>, into facts: inout SyncFacts
    ) throws(StoreError) {
        let bookkeeping: MirrorBookkeeping
        do {
            bookkeeping = try PartitionMirror.readBookkeeping(at: MirroredApp.bookkeepingPath(of: device))
        } catch {
            throw StoreError(.damagedFile, error.message, underlying: error)
        }
        try PartitionMirror.readEngineFacts(of: bookkeeping, store: store, into: &facts)
        // The account signed in now, as the device says it, rather than the one the engine last reported: the
        // engine hears of a switch only when its next operation begins, and until then a device signed into another
        // account than the data's would read "on" while its next sync can only pause. (An app reads it from
        // `CKContainer.userRecordID()` as it observes `CKAccountChanged`.)
        if let account = device.session.account { facts.currentUser = account.userRecordID }
        PartitionMirror.noteStartedAfreshUnsynced(bookkeeping, into: &facts)
    }
}

public import DeviceStore

/// The kinds of ``MirrorError``. Numbered from 1 in the order declared; a new kind is added at the end, so a number
/// never changes.
public enum MirrorErrorCode: Int, Sendable, Hashable {
    /// The mirror's bookkeeping file is there but cannot be read: damaged, hand-edited or another program's. It is
    /// left as it is.
    case damagedBookkeeping = 1
    /// The bookkeeping file cannot be written. What the store holds is safe; a first save that needed the file
    /// written waits until it is.
    case bookkeepingNotWritten
    /// The store refused the write (its error is the underlying one).
    case store
    /// A record fetched from the server cannot be stored here (another client's: a value out of range, a type
    /// other than the one of the record of that name here); it is left on the server.
    case fetchedRecordRefused
    /// A merge of this device's edits with the server's is over CloudKit's record size: the server's version was
    /// kept, and this device's edits of that record were dropped.
    case mergeTooLarge
    /// The mirror's folder beside the store cannot be made or locked (see `MirroredApp`).
    case folderUnusable
    /// Another process's mirror of the device held the mirror's folder locked for longer than the process's lock
    /// wait (`PRIVATESYNC_BUSY_TIMEOUT_MS` in the CLI): nothing was done; try again once it ends.
    case folderBusy
}

/// What the partition mirror could not do, naming the file or the record.
public typealias MirrorError = CodedError<MirrorErrorCode>

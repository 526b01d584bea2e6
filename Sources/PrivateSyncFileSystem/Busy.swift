/// An error that can say whether it was another connection's lock, held past the wait.
///
/// A busy file is transient (the other command finishes and it passes) and says nothing about the file, so every
/// layer reports it apart from damage: under contention a healthy container that could not be locked in time once
/// read as damaged, and paused sync as "container unusable" until the user forced a sync.
package protocol LockContentionReporting {
    /// Whether the failure was a lock another connection held for longer than the wait.
    var isBusy: Bool { get }
}

/// Whether `error`, or an error it wraps, was a lock held by another connection past the wait.
///
/// - Parameter error: Any error.
/// - Returns: `true` when some layer of it reports a busy file.
package func isBusy(_ error: any Error) -> Bool {
    (error as? any LockContentionReporting)?.isBusy ?? false
}

extension CodedError: LockContentionReporting {
    package var isBusy: Bool { underlying.map(PrivateSyncFileSystem.isBusy) ?? false }
}

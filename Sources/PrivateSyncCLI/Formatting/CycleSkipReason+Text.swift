import PrivateSync

extension CycleSkipReason {
    /// Why nothing moved, as `sync now` says it.
    var text: String {
        switch self {
        case .alreadyRunning: "a sync is already running"
        case .paused(.userDeletedZone): "sync is paused: the app's iCloud data was deleted"
        case .paused(.quotaExceeded): "sync is paused: iCloud storage is full (a forced sync tries again)"
        case .paused(.containerUnusable): "sync is paused: the container cannot be read (a forced sync tries again)"
        case .paused(let reason): "sync is paused: \(reason)"
        case .notDue(let date): "the next attempt is due at \(SyncStatus.clockTime(date))"
        case .archiveNotRestored(let reason):
            "this account's archived records could not be brought back yet (\(reason)); sync waits for them"
        }
    }
}

import PrivateSyncFileSystem

extension Connection {
    /// How long a new connection waits for another connection's lock before `SQLITE_BUSY`, in milliseconds, when
    /// its opener does not say: the process's lock wait (`LockWait`), 10 seconds unless the process set otherwise.
    ///
    /// One value for the process, set once at its start (the CLI reads `PRIVATESYNC_BUSY_TIMEOUT_MS`), so that every
    /// file the package opens, and every folder it locks, waits alike; a command that still meets a lock after the
    /// wait fails as busy (the CLI's exit 75, "busy, try again"), never as a damaged file.
    package static var defaultBusyTimeoutMilliseconds: Int32 {
        get { LockWait.defaultMilliseconds }
        set { LockWait.defaultMilliseconds = newValue }
    }
}

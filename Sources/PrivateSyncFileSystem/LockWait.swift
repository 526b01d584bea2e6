import Synchronization

/// How long a lock the package takes waits for another holder before it fails as busy, in milliseconds, when the
/// caller does not say: 10 seconds unless the process set otherwise.
///
/// One value for the process, set once at its start (the CLI reads `PRIVATESYNC_BUSY_TIMEOUT_MS`), for SQLite's
/// locks (every connection's busy timeout) and for the package's own folder locks alike, so that every wait of a
/// command ends the same way: a lock still held after it fails as busy (the CLI's exit 75, "busy, try again"), never
/// as a damaged file and never as a hang.
package enum LockWait {
    /// The process's wait, in milliseconds.
    package static var defaultMilliseconds: Int32 {
        get { milliseconds.load(ordering: .relaxed) }
        set { milliseconds.store(newValue, ordering: .relaxed) }
    }

    /// The wait, readable from any thread; a lock reads it once, when it starts waiting.
    private static let milliseconds = Atomic<Int32>(10_000)
}

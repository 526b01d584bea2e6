import Synchronization

/// A switch a simulation flips to "crash" a device's process at an arbitrary point.
///
/// Once down, every store transaction of that process rolls back instead of committing, and every container call
/// made through a guarded container fails, exactly as if the process had been killed at that instant: what was
/// committed before stays, nothing after is written. A relaunch uses a fresh switch.
public final class CrashSwitch: Sendable {
    private let down = Mutex(false)

    /// Creates a switch in the "running" position.
    public init() {}

    /// Crashes the process.
    public func crash() {
        down.withLock { $0 = true }
    }

    /// Whether the process has crashed.
    public var isDown: Bool { down.withLock { $0 } }
}

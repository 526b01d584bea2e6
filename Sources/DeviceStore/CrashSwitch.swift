import Synchronization

/// A switch a simulation flips to "crash" a device's process at an arbitrary point.
///
/// Once down, every store transaction of that process rolls back instead of committing, and every container call
/// made through a guarded container fails, exactly as if the process had been killed at that instant: what was
/// committed before stays, nothing after is written. A relaunch uses a fresh switch.
public final class CrashSwitch: Sendable {
    private let down = Mutex(false)
    /// Commits still allowed before an armed crash trips, or `nil` when none is armed.
    private let commitsLeft = Mutex<Int?>(nil)
    /// Whether an armed crash tripped (the process died inside a local write, not at a container call).
    private let trippedAtCommit = Mutex(false)
    /// Asked before each commit, besides an armed count: whether the process dies at this one (a simulation that
    /// draws its crashes elsewhere, a delegate sweep's crash point).
    private let tripsAtCommit: (@Sendable () -> Bool)?
    /// Asked before each commit the process lives through: whether it fails as on a full disk (a delegate sweep's
    /// full disk).
    private let refusesAtCommit: (@Sendable () -> Bool)?

    /// Creates a switch in the "running" position.
    public init() {
        tripsAtCommit = nil
        refusesAtCommit = nil
    }

    /// Creates a switch in the "running" position that also crashes at a commit when `trips` says so, and fails a
    /// commit as on a full disk when `refuses` says so.
    ///
    /// - Parameters:
    ///   - trips: Asked before each commit; `true` kills the process there.
    ///   - refuses: Asked before each commit `trips` let through; `true` fails it as on a full disk, the process
    ///     living on (``refusesWrite()``). `nil` never refuses.
    public init(
        trippingWhen trips: @escaping @Sendable () -> Bool, refusingWhen refuses: (@Sendable () -> Bool)? = nil
    ) {
        tripsAtCommit = trips
        refusesAtCommit = refuses
    }

    /// Called by a store just before it commits, once ``beforeCommit()`` let it through: whether the commit fails as
    /// on a full disk. The transaction then rolls back and the write throws an error whose cause is `ENOSPC`; the
    /// process lives on, and a later write may go through.
    ///
    /// - Returns: Whether the write must fail.
    public func refusesWrite() -> Bool {
        refusesAtCommit?() ?? false
    }

    /// Crashes the process.
    public func crash() {
        down.withLock { $0 = true }
    }

    /// Whether the process has crashed.
    public var isDown: Bool { down.withLock { $0 } }

    /// Arms a crash inside a later local write: the store transaction that would make the `commits`-th commit from
    /// now (counting from 0) is killed after its statements ran and before its COMMIT, as a process killed between
    /// any two statements of it would be (SQLite rolls back the whole transaction either way).
    ///
    /// - Parameter commits: How many commits to let through first.
    public func arm(afterCommits commits: Int) {
        commitsLeft.withLock { $0 = commits }
    }

    /// Disarms a crash armed by ``arm(afterCommits:)`` that has not tripped.
    public func disarm() {
        commitsLeft.withLock { $0 = nil }
    }

    /// Whether a crash is armed and has not tripped yet.
    public var isArmed: Bool { commitsLeft.withLock { $0 != nil } }

    /// Whether the process died inside a local write, at the commit an armed crash chose or the one `trippingWhen`
    /// said (rather than at a container call, or between steps): what a simulation's coverage counts as a crash
    /// between two durable steps.
    public var diedAtCommit: Bool { trippedAtCommit.withLock { $0 } }

    /// Called by a store just before it commits: trips an armed crash when its count is reached.
    ///
    /// - Returns: Whether the process is down (the transaction must not commit).
    public func beforeCommit() -> Bool {
        let trip = commitsLeft.withLock { left -> Bool in
            guard let count = left else { return false }
            if count == 0 {
                left = nil
                return true
            }
            left = count - 1
            return false
        }
        if trip || (!isDown && tripsAtCommit?() == true) {
            trippedAtCommit.withLock { $0 = true }
            crash()
        }
        return isDown
    }
}

import Synchronization

/// A test's disk, full or not: what a `CrashSwitch` asks before each write (`refusingWhen:`).
final class DiskSpace: Sendable {
    private let full = Atomic(false)
    /// Writes to let through before the one refused by ``refuse(afterWrites:)``; `-1` when none is.
    private let writesBeforeRefusal = Atomic(-1)

    /// Whether every write fails as on a full disk.
    var isFull: Bool {
        get { full.load(ordering: .sequentiallyConsistent) }
        set { full.store(newValue, ordering: .sequentiallyConsistent) }
    }

    /// Refuses one write only: the one after `writes` more went through.
    ///
    /// - Parameter writes: How many writes to let through first.
    func refuse(afterWrites writes: Int) {
        writesBeforeRefusal.store(writes, ordering: .sequentiallyConsistent)
    }

    /// Asked before each write: whether it fails.
    ///
    /// - Returns: Whether the disk is full, or this is the one write to refuse.
    func refusesWrite() -> Bool {
        if isFull { return true }
        // One atomic step: the count reaches the refused write exactly once, however the writes interleave.
        return writesBeforeRefusal.subtract(1, ordering: .sequentiallyConsistent).oldValue == 0
    }
}

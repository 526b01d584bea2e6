import Synchronization

/// A test's disk, full or not: what a `CrashSwitch` asks before each write (`refusingWhen:`).
final class DiskSpace: Sendable {
    private let full = Atomic(false)

    /// Whether every write fails as on a full disk.
    var isFull: Bool {
        get { full.load(ordering: .sequentiallyConsistent) }
        set { full.store(newValue, ordering: .sequentiallyConsistent) }
    }
}

import Synchronization

/// Where a sweep may kill a launch of a device inside the app's own writes: the app asks it before each durable
/// write (a commit of its database, a file written whole), and a write it refuses must not happen, as in a process
/// killed at that instant.
///
/// The crashes a sweep draws at requests and events kill a device between two of the app's steps. A crash here
/// lands between two of its writes, inside one step: a record committed and the bookkeeping that goes with it not,
/// an archive written and the records it holds not yet removed, a user's action cut short (what it wrote before is
/// the user's: an action of several writes says which went through, ``SweepActionInterrupted``). Only a run that
/// draws its steps as a swarm (``SweepStepMix/swarm``) arms it, and it never trips inside a launch, an app's reaction
/// to its account, or the heal.
///
/// An app that never asks is never crashed here: ask before every write that must survive a crash, or wire it into
/// the storage layer (the demo app gives it to its stores as a `CrashSwitch`).
///
/// It also fills the device's disk for a few writes (``refusesDurableWrite()``): each fails as on a full disk
/// (`ENOSPC`), and the process lives on. Where an app loses a write it could not make (a fetched page it could not
/// store while its engine's state moved past it), the sweep finds it. Same rules: runs of the swarm mix only, never
/// inside a launch, an account reaction or the heal.
public final class SweepCrashPoint: Sendable {
    private struct State {
        /// Writes still allowed before an armed crash trips, or `nil` when none is armed.
        var writesLeft: Int?
        var tripped = false
        /// Writes still to fail as on a full disk.
        var refusalsLeft = 0
        /// Writes failed as on a full disk, in this launch.
        var refused = 0
    }

    private let state = Mutex(State())
    /// Whether a crash may trip now: the sweep's word (not inside an action, a launch or the heal; this launch is
    /// the device's current one).
    private let mayTrip: @Sendable () -> Bool

    /// A crash point whose armed crash trips only when `mayTrip` says it may.
    init(mayTrip: @escaping @Sendable () -> Bool) {
        self.mayTrip = mayTrip
    }

    /// A crash point that never trips: for an app launched outside a sweep.
    public convenience init() {
        self.init(mayTrip: { false })
    }

    /// Called by the app before each durable write: whether the process is dead, and the write must not happen.
    /// Once it has said so, it says so to every later write of this launch.
    ///
    /// - Returns: Whether the write must not happen.
    public func beforeDurableWrite() -> Bool {
        if state.withLock({ $0.tripped }) { return true }
        // Asked outside the lock: the sweep's answer reads the run's state, which holds its own lock.
        let mayTrip = mayTrip()
        return state.withLock { state in
            guard let left = state.writesLeft, mayTrip else { return state.tripped }
            if left > 0 {
                state.writesLeft = left - 1
                return false
            }
            state.writesLeft = nil
            state.tripped = true
            return true
        }
    }

    /// Called by the app before each durable write that ``beforeDurableWrite()`` let through: whether it fails as on
    /// a full disk. The process lives on: the write must leave nothing and throw (the demo app's stores throw an
    /// error whose cause is `ENOSPC`), and a later one may go through once the sweep's count of refused writes is
    /// spent.
    ///
    /// - Returns: Whether the write must fail.
    public func refusesDurableWrite() -> Bool {
        let mayTrip = mayTrip()
        return state.withLock { state in
            guard mayTrip, !state.tripped, state.refusalsLeft > 0 else { return false }
            state.refusalsLeft -= 1
            state.refused += 1
            return true
        }
    }

    /// How many writes of this launch failed as on a full disk.
    public var writesRefused: Int { state.withLock { $0.refused } }

    /// Fills the disk: the next `writes` durable writes the app asks about fail (``refusesDurableWrite()``).
    ///
    /// - Parameter writes: How many writes fail.
    func fillDisk(forWrites writes: Int) {
        state.withLock { $0.refusalsLeft = writes }
    }

    /// Whether an armed crash tripped: the launch is dead from that write on.
    public var hasTripped: Bool { state.withLock { $0.tripped } }

    /// Arms a crash at a later durable write: `writes` more go through first.
    ///
    /// - Parameter writes: How many writes to let through.
    func arm(afterWrites writes: Int) {
        state.withLock { $0.writesLeft = writes }
    }
}

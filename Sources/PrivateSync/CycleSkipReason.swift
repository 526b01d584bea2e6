#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Why the engine did not run a cycle it was asked for.
public enum CycleSkipReason: Sendable, Hashable {
    /// Another cycle of this device was running (in this process or another).
    case alreadyRunning
    /// Sync is paused for this reason, which an unforced cycle waits out: the app's data deleted by the user
    /// (until consent), a full iCloud, a container that cannot be read (a forced cycle tries again).
    case paused(PauseReason)
    /// The last attempt failed, and the next one is not due until this time (a forced cycle runs anyway).
    case notDue(until: Date)
    /// Records this device archived for the account signed in now could not be brought back (the disk full, say):
    /// the store, started afresh, is not bound to that account until they are, so nothing in the archive is lost
    /// to a binding that would skip it for good. The reason, in words.
    case archiveNotRestored(String)
}

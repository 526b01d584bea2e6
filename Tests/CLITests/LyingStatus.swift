import PrivateSync
import Simulator

/// A status source that says on and up to date while sync is paused: the simulator catches it (invariant 5) the
/// first time a device pauses. The tests that need a failing seed without a known bug in the shipped code use it.
enum LyingStatus {
    /// The hooks that put the lying status source in a run.
    static let hooks = SimulationHooks(status: { app in
        let status = try app.status()
        guard case .paused = status.state else { return status }
        return SyncStatus(
            state: .on(.upToDate), fallbackOccurred: false, pendingChanges: status.pendingChanges, copy: "Sync is on.")
    })
}

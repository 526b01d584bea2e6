import Foundation
import PartitionMirror
import PartitionMirrorSweep
import PrivateSyncEngineTesting

/// The demo app with a flawed answer to the user turning sync on again after a purge: the pause ends, and what the
/// device holds is never queued to go up again (the store's queue is dropped). The user's word is lost: the sweep's
/// history must find it, since the device held those values when the user gave it.
final class ForgetfulConsentApp: SweptApp {
    let app: SweptPartitionMirror

    init(_ app: SweptPartitionMirror) {
        self.app = app
    }

    var syncEngine: PSSyncEngine {
        get async { await app.syncEngine }
    }

    func snapshot() async -> [String: String] { await app.snapshot() }

    func preserve(_ folder: URL, into next: URL) throws { try app.preserve(folder, into: next) }

    func status() async -> SweptStatus? { await app.status() }

    func userStartsAfresh() async throws -> Bool { try await app.userStartsAfresh() }

    func userTurnsSyncOnAgain() async throws -> Bool {
        guard try await app.userTurnsSyncOnAgain() else { return false }
        try app.stores.userCreated.syncTransaction { transaction in
            for row in try transaction.pendingChanges(limit: Int.max) {
                try transaction.removePendingChange(named: row.recordName, ifRevision: nil)
            }
        }
        return true
    }

    /// The sweep of the demo app with this flaw: the mirror's own actions, on the app it wraps.
    static func sweep() -> DelegateSweep<ForgetfulConsentApp> {
        DelegateSweep(
            makeApp: { device in ForgetfulConsentApp(try SweptPartitionMirror(device: device)) },
            actions: SweptPartitionMirror.actions.map { action in
                SweepAction(action.name, weight: action.weight) { app, random in
                    try await action.perform(app.app, &random)
                }
            },
            serverSnapshot: SweptPartitionMirror.serverSnapshot)
    }
}

import Foundation
import PartitionMirror
import PartitionMirrorSweep
import PrivateSyncEngineTesting
import Synchronization

/// The demo app through the mirror, its sync untouched, with a settings screen that lies in one way: what the sweep's
/// status check must find.
final class LyingStatusApp: SweptApp {
    /// How the status lies.
    enum Lie: String, CaseIterable, Sendable {
        /// Reads on and up to date when no account is signed in: the switch says on while nothing can sync.
        case onWhileSignedOut
        /// Reads paused, storage full, whenever changes wait to go up: a pause without its cause.
        case storageFullWhileSyncing
        /// Never reads up to date: says syncing once everything has synced.
        case neverUpToDate
        /// Reads waiting (offline) whenever changes wait to go up: a wait without its cause.
        case waitingWhileSyncing
        /// Reads waiting for room whenever changes wait to go up: a full disk that never was.
        case waitingForRoomWhileSyncing
        /// Reads up to date while changes wait to go up: what the user wrote looks safe in iCloud and is not.
        case upToDateWhileSyncing
        /// Reads paused, another account's data, whenever changes wait to go up: a choice asked of the user that
        /// there is no cause for.
        case accountChangedWhileSyncing
        /// Reads up to date while it would read syncing, once the clock has moved since the user's last action
        /// there (a status that takes "tried since" for "went up"): honest in the step of a save, a lie in every
        /// later one while anything waits (the clock moves before every step).
        case upToDateOnceTimePassed
        /// Reads up to date while the only changes waiting to go up are deletes (a status that counts the saves
        /// waiting, not the deletes): what the user deleted looks gone from iCloud and is not.
        case upToDateWhileOnlyDeletesWait
    }

    let app: SweptPartitionMirror
    let lie: Lie
    /// The device's clock, which the sweep moves before every step.
    let clock: ManualClock
    /// When the user last acted on the device, as its clock read.
    let lastActed = Mutex<Date?>(nil)

    /// Puts a lying settings screen in front of the app.
    ///
    /// - Parameters:
    ///   - app: The demo app through the mirror.
    ///   - lie: How its status lies.
    ///   - clock: The device's clock.
    init(_ app: SweptPartitionMirror, lie: Lie, clock: ManualClock) {
        self.app = app
        self.lie = lie
        self.clock = clock
    }

    var syncEngine: PSSyncEngine {
        get async { await app.syncEngine }
    }

    func snapshot() async -> [String: String] { await app.snapshot() }

    func preserve(_ folder: URL, into next: URL) throws { try app.preserve(folder, into: next) }

    func status() async -> SweptStatus? {
        let status = await app.status()
        switch (lie, status) {
        case (.onWhileSignedOut, .paused(.noAccount)?): return .on(.upToDate)
        case (.storageFullWhileSyncing, .on(.syncing)?): return .paused(.quotaExceeded)
        case (.neverUpToDate, .on(.upToDate)?): return .on(.syncing)
        case (.waitingWhileSyncing, .on(.syncing)?): return .on(.waiting)
        case (.waitingForRoomWhileSyncing, .on(.syncing)?): return .on(.waitingForRoom)
        case (.upToDateWhileSyncing, .on(.syncing)?): return .on(.upToDate)
        case (.accountChangedWhileSyncing, .on(.syncing)?): return .paused(.accountChanged)
        case (.upToDateOnceTimePassed, .on(.syncing)?):
            let now = clock.now()
            return lastActed.withLock { $0.map { $0 < now } ?? true } ? .on(.upToDate) : status
        case (.upToDateWhileOnlyDeletesWait, .on(.syncing)?):
            let waiting = (try? app.stores.userCreated.pendingChanges()) ?? []
            return !waiting.isEmpty && waiting.allSatisfy { $0.kind == .delete } ? .on(.upToDate) : status
        default: return status
        }
    }

    func userTurnsSyncOnAgain() async throws -> Bool { try await app.userTurnsSyncOnAgain() }

    func userStartsAfresh() async throws -> Bool { try await app.userStartsAfresh() }

    /// The sweep of the demo app with this lie: the mirror's own actions, on the app it wraps.
    static func sweep(lying lie: Lie) -> DelegateSweep<LyingStatusApp> {
        DelegateSweep(
            makeApp: { device in
                LyingStatusApp(try SweptPartitionMirror(device: device), lie: lie, clock: device.clock)
            },
            actions: SweptPartitionMirror.actions.map { action in
                SweepAction(action.name, weight: action.weight) { app, random in
                    let now = app.clock.now()
                    app.lastActed.withLock { $0 = now }
                    return try await action.perform(app.app, &random)
                }
            },
            serverSnapshot: SweptPartitionMirror.serverSnapshot)
    }
}

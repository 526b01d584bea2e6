import PrivateCloud
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The simulator's own reference model of the status: from the facts, the exact status the settings screen must
/// show (state, pause reason, on-detail, pending count, fallback flag).
///
/// Written from the rules in docs/partition-and-status.md, independently of `SyncStatus.derive`, which it checks:
/// the two must agree on every step of every run.
///
/// The rules, in order: off unless the user asked; a launch that fell back pauses with its reason; an account that
/// is not available now pauses with the reason its status names, and no account signed in is "sign in"; a store
/// that is not cloud-configured pauses as a failed store creation; data bound to another account than the one
/// signed in pauses as an account change; a pause the engine recorded (until the user acts), or a last attempt
/// that paused, pauses with that reason; a last attempt that failed with a transient error is on and waiting, for
/// the reason its code names, until the scheduled time; a store bound to no account yet (no cycle has bound it
/// since it was created or started afresh) is on and has not synced yet, whatever is pending, for nothing has
/// moved; otherwise on and syncing while changes are pending or the first download is unfinished, and on and up
/// to date when neither.
///
/// The facts here are the engine's records; ``Simulation/checkFirstSync(_:status:)`` checks the first-sync state
/// against what the simulator itself saw its cycles do.
enum StatusOracle {
    /// What the status must be.
    struct Expected: Equatable, CustomStringConvertible {
        var state: SyncStatus.State
        var pending: Int
        var fallback: Bool

        var description: String {
            let name: String =
                switch state {
                case .off: "off"
                case .on(.upToDate): "on (upToDate)"
                case .on(.syncing): "on (syncing)"
                case .on(.notYetSynced): "on (notYetSynced)"
                case .on(.waiting(let reason, let next)):
                    "on (waiting: \(reason.rawValue) until \(next.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "-"))"
                case .paused(let reason): "paused (\(reason.rawValue))"
                }
            return "\(name), \(pending) pending, fallback \(fallback)"
        }
    }

    /// The status the facts call for.
    ///
    /// - Parameter facts: What is true now.
    /// - Returns: The expected status.
    static func expected(_ facts: SyncFacts) -> Expected {
        let pending = facts.pendingChanges
        guard facts.syncWanted else { return Expected(state: .off, pending: pending, fallback: false) }
        if let cause = cause(facts) { return Expected(state: .paused(cause), pending: pending, fallback: true) }
        if case .retrying(let code)? = facts.lastOutcome {
            return Expected(
                state: .on(.waiting(reason: waitReason(code), nextAttempt: facts.nextAttempt)), pending: pending,
                fallback: false)
        }
        if facts.lastOutcome == .diskFull {
            return Expected(
                state: .on(.waiting(reason: .diskFull, nextAttempt: facts.nextAttempt)), pending: pending,
                fallback: false)
        }
        if facts.boundUser == nil { return Expected(state: .on(.notYetSynced), pending: pending, fallback: false) }
        let busy = pending > 0 || !facts.initialFetchDone
        return Expected(state: .on(busy ? .syncing : .upToDate), pending: pending, fallback: false)
    }

    /// Why sync the user asked for cannot run, or `nil` when it can.
    private static func cause(_ facts: SyncFacts) -> PauseReason? {
        if let launch = facts.launchFallback { return launch }
        switch facts.accountStatus {
        case .noAccount: return .noAccount
        case .restricted: return .accountRestricted
        case .temporarilyUnavailable, .couldNotDetermine: return .accountTemporarilyUnavailable
        case .available: break
        }
        if facts.currentUser == nil { return .noAccount }
        if !facts.userCreatedStoreIsCloud { return .storeCreationFailed }
        if let bound = facts.boundUser, bound != facts.currentUser { return .accountChanged }
        if let recorded = facts.enginePause { return recorded }
        if case .paused(let reason)? = facts.lastOutcome { return reason }
        return nil
    }

    /// The wait reason a transient code names.
    private static func waitReason(_ code: CloudError.Code) -> SyncStatus.WaitReason {
        switch code {
        case .networkUnavailable, .networkFailure: .offline
        case .serviceUnavailable, .requestRateLimited, .zoneBusy: .serverBusy
        case .serverResponseLost: .responseLost
        default: .retrying
        }
    }
}

/// How far a device's current store has got towards its first sync, as the simulator saw its own cycles go.
///
/// Kept beside the engine's records, never read from them: a reinstall or a start afresh sets it back, a cycle
/// moves it on, and ``Simulation/checkFirstSync(_:status:)`` holds the status to it from both sides.
enum FirstSyncSeen: Equatable {
    /// No cycle has started since the store was created or started afresh: nothing can have moved.
    case notStarted
    /// A cycle started (it may be in flight, or have ended before downloading), and none is known to have fetched.
    case started
    /// A cycle of this store received a page of the zone's changes: it bound the store before asking for it.
    case fetched
}

extension Simulation.Device {
    /// The store is a new one (a reinstall, a start afresh): its first sync is still to come, unless it resumes one.
    ///
    /// A cycle in flight began on the store before, and may still bind the new one (a start afresh can land between
    /// its first requests and its binding), so with one in flight nothing is claimed; nor for a store that resumes
    /// an account's sync from an archive.
    ///
    /// - Parameter resumingASync: Whether the new store takes up an archived account's sync where it left off.
    func newStore(resumingASync: Bool) {
        storeEra += 1
        refusedForGood.removeAll()
        firstSync = cycling || resumingASync ? .started : .notStarted
    }

    /// A start afresh was cut short (a crash, a failed write): the store may be the old one or a new one, so nothing is
    /// claimed of its first sync until a cycle of it fetches, and a cycle in flight says nothing of it.
    func mayHaveNewStore() {
        storeEra += 1
        // (A record refused for good is kept: it is exempt only while the store holds it as refused.)
        firstSync = .started
    }

    /// Moves the first sync on after a cycle: to fetched when the cycle received a page of the zone's changes from
    /// the container and no new store came meanwhile.
    ///
    /// - Parameters:
    ///   - report: The cycle's report.
    ///   - era: ``storeEra`` when the cycle began.
    ///   - pageFetched: Whether the container answered a zone fetch of the cycle with a page: what a report without
    ///     requests (CKSyncEngine's delegate's) says instead.
    func noteFirstSync(_ report: SyncReport, era: Int, pageFetched: Bool) {
        guard era == storeEra else { return }
        // The engine binds the store before any zone request, and the binding commits before it: a page received
        // means bound, whatever happened after (a crash, a stop).
        if pageFetched || report.requests.contains(where: { $0.operation == .recordZoneChanges && $0.error == nil }) {
            firstSync = .fetched
        }
    }
}

extension Simulation {
    /// Invariant 5, the first sync, from what the simulator saw rather than the engine's records: a store no cycle
    /// has run on reads on only as not yet synced (never syncing, downloading or up to date: nothing has moved), and
    /// a store a cycle fetched a page for never reads as not yet synced.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - status: The status it shows.
    func checkFirstSync(_ device: Device, status: SyncStatus) {
        guard case .on(let detail) = status.state else { return }
        switch device.firstSync {
        case .notStarted:
            check(
                .honestStatus, detail == .notYetSynced,
                "\(device.name): status is \(status) (\"\(status.copy)\"), but no cycle has run on this store")
        case .fetched:
            check(
                .honestStatus, detail != .notYetSynced,
                "\(device.name): status is \(status) (\"\(status.copy)\"), but a cycle of this store fetched from iCloud"
            )
        case .started:
            break
        }
    }
}

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
/// the reason its code names, until the scheduled time; otherwise on and syncing while changes are pending or the
/// first download is unfinished, and on and up to date when neither.
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

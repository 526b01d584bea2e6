import PrivateCloud
import Synchronization

/// Faults that stay in force on an account's server across many calls, as real servers behave: a per-request item
/// limit that stays low for a while (a low-limit episode), and change tokens the server stopped honouring (once
/// expired, a token stays expired, through the heal too).
///
/// Shared by every device's ``EpisodeContainer``; it counts what it refused, per device, for the bounds the
/// simulation checks.
final class ServerEpisodes: Sendable {
    private struct State {
        /// The item limit of each account's server, while a low-limit episode lasts.
        var lowLimit: [String: Int] = [:]
        /// The zone change tokens each account's server returned so far.
        var issued: [String: Set<[UInt8]>] = [:]
        /// The zone change tokens each account's server refuses for good.
        var expired: [String: Set<[UInt8]>] = [:]
        /// `limitExceeded` refusals, by device, since the device's count was last reset.
        var refusals: [String: Int] = [:]
        /// Modify requests accepted under a low limit, by device, since the device's count was last reset: the
        /// engine probes a larger batch once per 10 of them (docs/engine.md, "Send"), each probe one refusal more.
        var accepted: [String: Int] = [:]
        /// `changeTokenExpired` refusals, by account.
        var tokenRefusals: [String: Int] = [:]
        /// Every refusal, of either kind.
        var total = 0
        /// Every `limitExceeded` refusal, over every device, never reset.
        var limitRefusals = 0
    }

    private let state = Mutex(State())

    /// Starts (or, with `nil`, ends) a low-limit episode on an account's server.
    ///
    /// - Parameters:
    ///   - limit: The most items a modify request may carry, or `nil` for the normal limit.
    ///   - account: The account.
    func setLowLimit(_ limit: Int?, for account: AccountID) {
        state.withLock { $0.lowLimit[account.rawValue] = limit }
    }

    /// The low limit in force on an account's server, if any.
    func lowLimit(for account: AccountID?) -> Int? {
        guard let account else { return nil }
        return state.withLock { $0.lowLimit[account.rawValue] }
    }

    /// Expires, for good, every zone change token the account's server has returned so far.
    ///
    /// - Parameter account: The account.
    /// - Returns: How many tokens it expired.
    @discardableResult
    func expireTokens(of account: AccountID) -> Int {
        state.withLock { state in
            let tokens = state.issued[account.rawValue] ?? []
            state.expired[account.rawValue, default: []].formUnion(tokens)
            return tokens.count
        }
    }

    /// Whether the server refuses this token.
    func isExpired(_ token: ChangeToken?, account: AccountID?) -> Bool {
        guard let token, let account else { return false }
        return state.withLock { state in
            let refused = state.expired[account.rawValue]?.contains(token.bytes) ?? false
            if refused {
                state.tokenRefusals[account.rawValue, default: 0] += 1
                state.total += 1
            }
            return refused
        }
    }

    /// Notes a token the server returned. A token the server hands out again after it expired one of the same
    /// bytes is a fresh one, honoured like any other: the container's tokens name a position in the zone's history,
    /// so a fetch from the start after an expiry meets the bytes of tokens it expired, and refusing those made every
    /// refetch fail at its second page for ever (seeds 66, 73 and 85 of 100, found by invariant 13 once pages became
    /// small).
    func issued(_ token: ChangeToken, account: AccountID?) {
        guard let account else { return }
        state.withLock {
            $0.issued[account.rawValue, default: []].insert(token.bytes)
            $0.expired[account.rawValue]?.remove(token.bytes)
        }
    }

    /// Counts a `limitExceeded` refusal of a device's request.
    func refused(device: String) {
        state.withLock {
            $0.refusals[device, default: 0] += 1
            $0.limitRefusals += 1
            $0.total += 1
        }
    }

    /// The device's `limitExceeded` refusals since its count was last reset.
    func refusals(device: String) -> Int {
        state.withLock { $0.refusals[device] ?? 0 }
    }

    /// Counts a modify request of a device that a server under a low limit accepted.
    func accepted(device: String) {
        state.withLock { $0.accepted[device, default: 0] += 1 }
    }

    /// The device's modify requests accepted under a low limit since its count was last reset.
    func acceptedUnderLowLimit(device: String) -> Int {
        state.withLock { $0.accepted[device] ?? 0 }
    }

    /// Resets the device's counts of refused and accepted requests (a new episode, or the device's engine state
    /// started over).
    func resetRefusals(device: String) {
        state.withLock {
            $0.refusals[device] = 0
            $0.accepted[device] = 0
        }
    }

    /// Refusals so far, of either kind, over every account and device.
    var totalRefusals: Int { state.withLock { $0.total } }

    /// The paths the episodes took: a request refused under a low limit, a fetch refused for an expired token.
    var paths: Set<SimulationPath> {
        state.withLock { state in
            var paths = Set<SimulationPath>()
            if state.limitRefusals > 0 { paths.insert(.lowLimitRefusal) }
            if state.total > state.limitRefusals { paths.insert(.expiredTokenRefusal) }
            return paths
        }
    }
}

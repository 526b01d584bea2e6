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
        /// `changeTokenExpired` refusals, by account.
        var tokenRefusals: [String: Int] = [:]
        /// Every refusal, of either kind.
        var total = 0
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

    /// Notes a token the server returned.
    func issued(_ token: ChangeToken, account: AccountID?) {
        guard let account else { return }
        _ = state.withLock { $0.issued[account.rawValue, default: []].insert(token.bytes) }
    }

    /// Counts a `limitExceeded` refusal of a device's request.
    func refused(device: String) {
        state.withLock {
            $0.refusals[device, default: 0] += 1
            $0.total += 1
        }
    }

    /// The device's `limitExceeded` refusals since its count was last reset.
    func refusals(device: String) -> Int {
        state.withLock { $0.refusals[device] ?? 0 }
    }

    /// Resets the device's refusal count (a new episode, or the device's engine state started over).
    func resetRefusals(device: String) {
        state.withLock { $0.refusals[device] = 0 }
    }

    /// Refusals so far, of either kind, over every account and device.
    var totalRefusals: Int { state.withLock { $0.total } }
}

import PrivateCloud
import Synchronization

/// The run's fault source: seeded random faults, counted by kind and by account, and switched off for the heal.
final class CountingFaults: FaultSource {
    private struct Tally {
        var byKind: [FaultKind: Int] = [:]
        var byAccount: [String: [FaultKind: Int]] = [:]
    }

    private let source: RandomFaults
    private let tally = Mutex(Tally())

    /// The rate of each kind, per call it applies to, before the run's storminess multiplies it.
    static let baseRates: [FaultKind: Double] = [
        .networkUnavailable: 0.02, .networkFailure: 0.02, .serviceUnavailable: 0.01, .rateLimited: 0.01,
        .zoneBusy: 0.01, .accountTemporarilyUnavailable: 0.005, .quotaExceeded: 0.004, .serverResponseLost: 0.01,
        .partialFailure: 0.01, .limitExceeded: 0.01, .userDeletedZone: 0.002, .tokenExpired: 0.01,
    ]

    init(seed: UInt64, storminess: Double) {
        source = RandomFaults(seed: seed, rates: Self.baseRates.mapValues { $0 * storminess })
    }

    func setEnabled(_ enabled: Bool) {
        source.setEnabled(enabled)
    }

    var byKind: [FaultKind: Int] { tally.withLock { $0.byKind } }

    /// Whether a fault of `kind` ever struck a call made for `account`.
    func struck(_ kind: FaultKind, account: AccountID) -> Bool {
        strikes(kind, account: account) > 0
    }

    /// How many faults of `kind` struck calls made for `account`.
    func strikes(_ kind: FaultKind, account: AccountID) -> Int {
        tally.withLock { $0.byAccount[account.rawValue]?[kind] ?? 0 }
    }

    func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        guard let fault = source.nextFault(for: call, account: account) else { return nil }
        tally.withLock {
            $0.byKind[fault.kind, default: 0] += 1
            if let account { $0.byAccount[account.rawValue, default: [:]][fault.kind, default: 0] += 1 }
        }
        return fault
    }
}

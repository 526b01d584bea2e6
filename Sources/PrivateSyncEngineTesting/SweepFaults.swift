import PrivateSyncDeterminism
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The faults of one seed of a ``DelegateSweep``: a storm of the container's faults drawn from the seed, which the
/// run holds while an app launches or reacts to an account change and stops for the heal; and the records the server
/// refuses for good, which neither holding nor the heal lifts.
///
/// The kinds that remove a zone (`user-deleted-zone`, `zone-not-found`, `encrypted-data-reset`) are not in the
/// storm: the run deletes zones itself, with each reason, so that the oracle knows what was deleted and when. A
/// per-record refusal (`partial-failure`, `item-limit-exceeded`) is not drawn either: in CloudKit it says the record
/// itself is refused (a bad value, too large), so the run refuses a record for good instead (``refuseForGood(_:)``),
/// which is what tells a delegate that drops such a change from one that re-adds it for ever.
///
/// A device cut off the network (an outage, ``cutOff(_:until:)``) fails every request with `networkUnavailable`
/// until the spell ends, held or not: an app launched or told of an account change in that spell cannot fetch. Only
/// the question of who is signed in still goes through: CKSyncEngine learns of the device's account from the device
/// (`CKAccountChanged`, `accountStatus()`), where the engine here asks at each operation, so every app still learns
/// of its account at once. The heal ends every spell.
final class SweepFaults: FaultSource {
    /// The kinds of the storm, and each one's probability of striking a call it applies to, at storminess 1.
    static let rates: [FaultKind: Double] = [
        .networkUnavailable: 0.04, .networkFailure: 0.04, .serviceUnavailable: 0.02, .rateLimited: 0.02,
        .zoneBusy: 0.02, .accountTemporarilyUnavailable: 0.01, .quotaExceeded: 0.01, .serverResponseLost: 0.03,
        .limitExceeded: 0.03, .tokenExpired: 0.03, .itemQuotaExceeded: 0.01, .duplicateDelivery: 0.05,
        .delayedDelivery: 0.05, .reorderedPages: 0.05,
    ]

    private struct State {
        var holds = 0
        var stopped = false
        var refused: Set<String> = []
        var struck: [FaultKind: Int] = [:]
        /// The devices cut off the network, and until when.
        var offlineUntil: [String: Date] = [:]
    }

    private let storm: RandomFaults
    private let state = Mutex(State())
    /// The run's clock, which ends an outage.
    private let now: @Sendable () -> Date

    /// Creates the faults of a seed.
    ///
    /// - Parameters:
    ///   - seed: The storm's seed (the run's own, so that the storm replays).
    ///   - storminess: A factor on every rate, drawn per seed: calm runs and stormy ones.
    ///   - now: The run's clock.
    init(seed: UInt64, storminess: Double, now: @escaping @Sendable () -> Date) {
        storm = RandomFaults(seed: seed, rates: Self.rates.mapValues { min(0.9, $0 * storminess) })
        self.now = now
    }

    /// Holds the storm (nested holds count) while an app launches or reacts, so that it notices what happened.
    func hold() { state.withLock { $0.holds += 1 } }

    /// Ends one hold.
    func release() { state.withLock { $0.holds -= 1 } }

    /// Cuts a device off the network until a time: each of its requests fails as offline (`networkUnavailable`)
    /// until then, held or not; a later spell that ends sooner does not shorten one under way.
    ///
    /// - Parameters:
    ///   - device: The device's name, as its container names it.
    ///   - end: When the network comes back.
    func cutOff(_ device: String, until end: Date) {
        state.withLock { state in
            state.offlineUntil[device] = max(end, state.offlineUntil[device] ?? end)
        }
    }

    /// Whether a device is cut off the network now.
    ///
    /// - Parameter device: The device's name.
    /// - Returns: Whether a spell of it is under way (never after the heal).
    func isOffline(_ device: String) -> Bool {
        let end = state.withLock { $0.stopped ? nil : $0.offlineUntil[device] }
        return end.map { now() < $0 } ?? false
    }

    /// Stops the storm for good: the heal.
    func stop() { state.withLock { $0.stopped = true } }

    /// Makes the server refuse every later save of a record (`serverRejectedRequest`), as CloudKit refuses a record
    /// whose values it cannot take.
    ///
    /// - Parameter recordName: The record.
    func refuseForGood(_ recordName: String) { state.withLock { _ = $0.refused.insert(recordName) } }

    /// The records the server refuses for good.
    var refused: Set<String> { state.withLock { $0.refused } }

    /// How many faults struck, by kind (a refused record's refusals included, as `partial-failure`).
    var struck: [FaultKind: Int] { state.withLock { $0.struck } }

    func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        nextFault(for: call, target: CallTarget(account: account))
    }

    func nextFault(for call: ContainerCall, target: CallTarget) -> Fault? {
        let (held, refused) = state.withLock { ($0.holds > 0 || $0.stopped, $0.refused) }
        var fault: Fault?
        if let device = target.device, isOffline(device), Self.needsTheNetwork(call) {
            // Offline: the request never leaves the device.
            fault = Fault(.networkUnavailable)
        } else if case .modifyRecords(let saves, _) = call, saves > 0,
            // A refusal of a record's values: its saves fail, its delete goes through.
            let name = target.savedRecordNames.intersection(refused).sorted().first
        {
            fault = Fault(.partialFailure, record: name)
        } else if !held {
            fault = storm.nextFault(for: call, target: target)
        }
        if let fault { state.withLock { $0.struck[fault.kind, default: 0] += 1 } }
        return fault
    }

    /// Whether a call needs the network: every request but the question of who is signed in (which CKSyncEngine
    /// learns from the device); a page already handed back is past it.
    ///
    /// - Parameter call: The call.
    /// - Returns: Whether an outage fails it.
    private static func needsTheNetwork(_ call: ContainerCall) -> Bool {
        switch call {
        case .userRecordID, .zoneChangesDelivered: false
        case .saveZones, .deleteZones, .allZones, .fetchRecords, .modifyRecords, .recordZoneChanges, .databaseChanges:
            true
        }
    }
}

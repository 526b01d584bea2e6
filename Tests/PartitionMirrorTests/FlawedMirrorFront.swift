import PartitionMirror
import PartitionMirrorSweep
import PrivateSyncEngineTesting
import Synchronization
import Testing

/// The partition mirror with one flaw a team could write: it passes the engine's events and calls on to the mirror,
/// but gets one thing wrong. What the delegate sweep must find, each within 300 seeds.
final class FlawedMirrorFront: SweptPartitionMirrorFront {
    /// The flaws.
    enum Flaw: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Puts a local-only record (a `Baseline`) in every batch: the partition breached.
        case uploadsLocalOnlyRecords
        /// Never hands `stateUpdate` on: the state a relaunch starts from is always the first.
        case forgetsStateUpdates
        /// Drops the deletions of a fetch: a record deleted on another device stays here.
        case ignoresFetchedDeletions
        /// Reads a zone `purged` by the user as an encrypted-data reset: it uploads what the user deleted.
        case takesPurgeForReset
        /// Ignores `switchAccounts`: the previous account's entries stay, and go up to the new one.
        case ignoresAccountSwitches

        var testDescription: String { rawValue }

        /// The invariants a sweep may name for it.
        var brokenInvariants: Set<DelegateSweepFailure.Invariant> {
            switch self {
            case .uploadsLocalOnlyRecords: [.privacy, .noLostWrites, .convergence]
            case .forgetsStateUpdates: [.stateRestored]
            case .ignoresFetchedDeletions: [.convergence]
            case .takesPurgeForReset: [.purgedStaysDeleted]
            case .ignoresAccountSwitches: [.privacy, .convergence]
            }
        }
    }

    let flaw: Flaw
    private let mirror = Mutex<PartitionMirror?>(nil)
    private let leaks = Atomic<Int>(0)

    init(_ flaw: Flaw) {
        self.flaw = flaw
    }

    func attach(_ mirror: PartitionMirror) {
        self.mirror.withLock { $0 = mirror }
    }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        guard let mirror = mirror.withLock({ $0 }) else { return }
        var passed = event
        switch (flaw, event) {
        case (.forgetsStateUpdates, .stateUpdate):
            return
        case (.ignoresFetchedDeletions, .fetchedRecordZoneChanges(let fetched)):
            passed = .fetchedRecordZoneChanges(.init(modifications: fetched.modifications, deletions: []))
        case (.takesPurgeForReset, .fetchedDatabaseChanges(let changes)):
            passed = .fetchedDatabaseChanges(
                .init(
                    modifications: changes.modifications,
                    deletions: changes.deletions.map {
                        .init(zoneID: $0.zoneID, reason: $0.reason == .purged ? .encryptedDataReset : $0.reason)
                    }))
        case (.ignoresAccountSwitches, .accountChange(let change)):
            if case .switchAccounts = change.changeType { return }
        default:
            break
        }
        await mirror.handleEvent(passed, syncEngine: syncEngine)
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard let mirror = mirror.withLock({ $0 }) else { return nil }
        let batch = await mirror.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
        guard flaw == .uploadsLocalOnlyRecords, var batch else { return batch }
        let number = leaks.add(1, ordering: .relaxed).newValue
        let leak = PSRecord(
            recordType: "Baseline",
            recordID: PSRecord.ID(recordName: "leaked-baseline-\(number)", zoneID: mirror.zoneID))
        leak["metric"] = "resting heart rate"
        batch.recordsToSave.append(leak)
        return batch
    }
}

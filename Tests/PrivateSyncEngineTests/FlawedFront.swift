import ContactsSample
import ContactsSampleSweep
import PrivateSyncEngineTesting
import Synchronization
import Testing

/// The sample's delegate with one flaw a team could write: it passes the engine's events on to the sample, but gets
/// one kind of event wrong. What the delegate sweep must find, each within 300 seeds.
final class FlawedFront: SweptContactsFront {
    /// The flaws.
    enum Flaw: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Never hands `stateUpdate` on: the state a relaunch starts from is always the first.
        case forgetsStateUpdates
        /// Hands on a `serverRecordChanged` failure as a save that went through: the conflict is never merged, and
        /// the edit never goes up.
        case dropsServerRecordChanged
        /// Reads a zone `purged` by the user as an encrypted-data reset: it uploads what the user deleted.
        case takesPurgeForReset
        /// Ignores `switchAccounts`: the previous account's data stays, and goes up to the new one.
        case ignoresAccountSwitches
        /// Adds a save the server refused (`serverRejectedRequest`) again, every time.
        case readdsRefusedSavesForever
        /// Awaits `sendChanges()` from inside `handleEvent`, after each fetch.
        case sendsInsideHandleEvent
        /// Sends again, after each fetch, every contact the server just told it about: the values never change,
        /// but the writes never stop.
        case resendsWhatItFetched

        var testDescription: String { rawValue }

        /// The invariants a sweep may name for it: the one its flaw breaks first, and those it breaks on the way.
        var brokenInvariants: Set<DelegateSweepFailure.Invariant> {
            switch self {
            case .forgetsStateUpdates: [.stateRestored]
            case .dropsServerRecordChanged: [.convergence, .noLostWrites]
            case .takesPurgeForReset: [.purgedStaysDeleted]
            case .ignoresAccountSwitches: [.privacy, .convergence]
            case .readdsRefusedSavesForever: [.quiescence]
            case .sendsInsideHandleEvent: [.noMisuse]
            case .resendsWhatItFetched: [.quiescence]
            }
        }
    }

    let flaw: Flaw
    private let sample = Mutex<SyncedDatabase?>(nil)

    init(_ flaw: Flaw) {
        self.flaw = flaw
    }

    func attach(_ contacts: SyncedDatabase) {
        sample.withLock { $0 = contacts }
    }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        guard let sample = sample.withLock({ $0 }) else { return }
        var passed = event
        switch (flaw, event) {
        case (.forgetsStateUpdates, .stateUpdate):
            return
        case (.dropsServerRecordChanged, .sentRecordZoneChanges(let sent)):
            let conflicts = sent.failedRecordSaves.filter { $0.error.code == .serverRecordChanged }
            passed = .sentRecordZoneChanges(
                .init(
                    savedRecords: sent.savedRecords + conflicts.map(\.record),
                    failedRecordSaves: sent.failedRecordSaves.filter { $0.error.code != .serverRecordChanged },
                    deletedRecordIDs: sent.deletedRecordIDs, failedRecordDeletes: sent.failedRecordDeletes))
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
        await sample.handleEvent(passed, syncEngine: syncEngine)
        switch (flaw, event) {
        case (.readdsRefusedSavesForever, .sentRecordZoneChanges(let sent)):
            let refused = sent.failedRecordSaves.filter { $0.error.code == .serverRejectedRequest }
            syncEngine.state.add(pendingRecordZoneChanges: refused.map { .saveRecord($0.record.recordID) })
        case (.sendsInsideHandleEvent, .didFetchChanges):
            try? await syncEngine.sendChanges()
        case (.resendsWhatItFetched, .fetchedRecordZoneChanges(let fetched)):
            syncEngine.state.add(
                pendingRecordZoneChanges: fetched.modifications.map { .saveRecord($0.record.recordID) })
        default:
            break
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard let sample = sample.withLock({ $0 }) else { return nil }
        return await sample.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
    }
}

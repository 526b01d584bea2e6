import PrivateSyncEngine
import Synchronization

/// The delegate of `engine_events_ratio`: it hands over the records it was given and counts what it is told, nothing
/// else, so that the figure measures the engine.
final class PassThroughDelegate: PSSyncEngineDelegate {
    let records: [PSRecord.ID: PSRecord]
    private let counts = Mutex((events: 0, fetched: 0))

    init(records: [PSRecord]) {
        self.records = Dictionary(uniqueKeysWithValues: records.map { ($0.recordID, $0) })
    }

    /// The events delivered so far.
    var events: Int { counts.withLock { $0.events } }
    /// The records fetched so far.
    var fetched: Int { counts.withLock { $0.fetched } }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        let fetched = if case .fetchedRecordZoneChanges(let changes) = event { changes.modifications.count } else { 0 }
        counts.withLock {
            $0.events += 1
            $0.fetched += fetched
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        let records = self.records
        return await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: syncEngine.state.pendingRecordZoneChanges) {
            records[$0]
        }
    }
}

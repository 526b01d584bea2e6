import PartitionMirror
import PrivateSyncEngineTesting
import Synchronization

/// The partition mirror with the flaw a partition exists to prevent: every batch it hands the engine also holds a
/// local-only record (a `Baseline`). What the sweep must find, as a breach of privacy.
final class LeakingFront: DelegateFront {
    /// Held weakly, as a front holds what it fronts (``DelegateFront``).
    private struct Fronted {
        weak var delegate: (any PSSyncEngineDelegate)?
    }

    private let mirror = Mutex(Fronted())
    private let leaks = Atomic<Int>(0)

    func attach(_ delegate: any PSSyncEngineDelegate) {
        mirror.withLock { $0.delegate = delegate }
    }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        await mirror.withLock { $0.delegate }?.handleEvent(event, syncEngine: syncEngine)
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard
            var batch = await mirror.withLock({ $0.delegate })?.nextRecordZoneChangeBatch(
                context, syncEngine: syncEngine)
        else { return nil }
        let number = leaks.add(1, ordering: .relaxed).newValue
        let leak = PSRecord(
            recordType: "Baseline",
            recordID: PSRecord.ID(
                recordName: "leaked-baseline-\(number)",
                zoneID: PSRecordZone.ID(zoneName: PartitionMirror.defaultZoneName)))
        leak["metric"] = "resting heart rate"
        batch.recordsToSave.append(leak)
        return batch
    }
}

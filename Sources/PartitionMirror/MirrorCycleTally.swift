import PrivateSync
import PrivateSyncEngine
import Synchronization

/// Stands in front of the mirror as the engine's delegate, counting what a cycle moved for its report: every call
/// passes on to the mirror unchanged.
///
/// The engine holds its delegate weakly; ``MirroredApp`` keeps the tally alive, and the tally holds the mirror.
final class MirrorCycleTally: PSSyncEngineDelegate {
    /// The counts since the last ``reset()``.
    private let counts = Mutex(SyncReport())
    /// Zones the engine created, and saves refused because the zone was missing, since the tally was made: a send
    /// that moved either leaves records for the next (see ``MirroredApp/sync(fetching:sending:)``).
    private let zoneStepCount = Atomic<Int>(0)
    /// The mirror the calls pass on to, set once it is made (it is made with the tally as its delegate).
    private let target = Mutex<PartitionMirror?>(nil)

    /// Sets the mirror the calls pass on to.
    ///
    /// - Parameter mirror: The mirror.
    func passOn(to mirror: PartitionMirror) {
        target.withLock { $0 = mirror }
    }

    /// Starts counting afresh, for a new cycle.
    func reset() {
        counts.withLock { $0 = SyncReport() }
    }

    /// How many zones the engine created, and saves it had refused for a missing zone, since the tally was made.
    var zoneSteps: Int { zoneStepCount.load(ordering: .sequentiallyConsistent) }

    /// What moved since the last ``reset()``.
    var report: SyncReport { counts.withLock { $0 } }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        guard let mirror = target.withLock({ $0 }) else { return }
        // An engine the mirror replaced: the mirror ignores its events, so they moved nothing.
        if await mirror.engine === syncEngine { count(event) }
        await mirror.handleEvent(event, syncEngine: syncEngine)
    }

    /// Counts what an event says moved.
    ///
    /// - Parameter event: The event.
    private func count(_ event: PSSyncEngine.Event) {
        switch event {
        case .sentDatabaseChanges(let sent):
            zoneStepCount.add(sent.savedZones.count, ordering: .sequentiallyConsistent)
        case .sentRecordZoneChanges(let sent):
            counts.withLock { report in
                report.sentSaves += sent.savedRecords.count
                report.sentDeletes += sent.deletedRecordIDs.count
                // A save refused because the server's version changed is merged by the mirror and sent again.
                report.conflictsResolved += sent.failedRecordSaves.count { $0.error.code == .serverRecordChanged }
            }
            let zoneMissing = sent.failedRecordSaves.count {
                [.zoneNotFound, .userDeletedZone].contains($0.error.code)
            }
            zoneStepCount.add(zoneMissing, ordering: .sequentiallyConsistent)
        case .fetchedRecordZoneChanges(let fetched):
            counts.withLock { report in
                report.fetchedModifications += fetched.modifications.count
                report.fetchedDeletions += fetched.deletions.count
            }
        default: break
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard let mirror = target.withLock({ $0 }) else { return nil }
        return await mirror.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
    }

    func nextFetchChangesOptions(
        _ context: PSSyncEngine.FetchChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.FetchChangesOptions {
        guard let mirror = target.withLock({ $0 }) else { return context.options }
        return await mirror.nextFetchChangesOptions(context, syncEngine: syncEngine)
    }
}

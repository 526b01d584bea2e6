import PrivateSync
import PrivateSyncEngine
import Synchronization

/// Stands in front of the mirror as the engine's delegate, counting what a cycle moved for its report: every call
/// passes on to the mirror unchanged.
///
/// The engine holds its delegate weakly; ``MirroredApp`` keeps the tally alive, and the tally holds the mirror.
final class MirrorCycleTally: PSSyncEngineDelegate {
    /// Whether the user still wants sync (the device's switch, read from its preferences file at each batch).
    let isSyncWanted: @Sendable () -> Bool
    /// The counts since the last ``reset()``.
    private let counts = Mutex(SyncReport())
    /// Zones the engine created, and saves refused because the zone was missing, since the tally was made: a send
    /// that moved either leaves records for the next (see ``MirroredApp/sync(fetching:sending:)``).
    private let zoneStepCount = Atomic<Int>(0)
    /// The mirror the calls pass on to, set once it is made (it is made with the tally as its delegate). Held
    /// weakly: the mirror holds the tally (its `engineDelegate`), so a strong link back kept both, and the app's
    /// stores with them, for the life of the process; a simulator that reinstalls the app found its stores still
    /// open. ``MirroredApp`` holds the mirror while it lives.
    private let target = Mutex<WeakMirror>(WeakMirror())

    /// A link to the mirror that does not keep it alive.
    private struct WeakMirror {
        weak var mirror: PartitionMirror?
    }

    /// A tally that reads the switch with `isSyncWanted`.
    ///
    /// - Parameter isSyncWanted: Whether the user still wants sync.
    init(isSyncWanted: @escaping @Sendable () -> Bool) {
        self.isSyncWanted = isSyncWanted
    }

    /// Sets the mirror the calls pass on to.
    ///
    /// - Parameter mirror: The mirror.
    func passOn(to mirror: PartitionMirror) {
        target.withLock { $0.mirror = mirror }
    }

    /// Starts counting afresh, for a new cycle.
    func reset() {
        counts.withLock { $0 = SyncReport() }
    }

    /// How many zones the engine created, and saves it had refused for a missing zone, since the tally was made.
    var zoneSteps: Int { zoneStepCount.load(ordering: .sequentiallyConsistent) }

    /// What moved since the last ``reset()``.
    var report: SyncReport { counts.withLock { $0 } }

    /// Passes the event on to the mirror, then counts what it moved, if the mirror kept it.
    ///
    /// Nothing is counted of an engine the mirror replaced (it ignores its events), of an engine serving another
    /// account than the data's (sync is paused for the switch), or of a page the store could not write (it is
    /// fetched again, and counted then); of a page, only the changes of the mirror's zone.
    ///
    /// - Parameters:
    ///   - event: The engine's event.
    ///   - syncEngine: The engine that posted it.
    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        guard let mirror = target.withLock({ $0.mirror }) else { return }
        let failedPagesBefore = await mirror.pageWriteFailures
        await mirror.handleEvent(event, syncEngine: syncEngine)
        guard await mirror.engine === syncEngine, await !mirror.engineBehind, await mirror.engineServesTheData,
            await mirror.pageWriteFailures <= failedPagesBefore
        else { return }
        count(event, zone: mirror.zoneID)
    }

    /// Counts what an event says moved.
    ///
    /// - Parameters:
    ///   - event: The event, which the mirror kept.
    ///   - zone: The mirror's zone.
    private func count(_ event: PSSyncEngine.Event, zone: PSRecordZone.ID) {
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
                report.fetchedModifications += fetched.modifications.count { $0.record.recordID.zoneID == zone }
                report.fetchedDeletions += fetched.deletions.count { $0.recordID.zoneID == zone }
            }
        default: break
        }
    }

    /// The mirror's next batch, unless the user turned sync off meanwhile (in another process: the switch is read
    /// after the batch is, so that a batch read before the switch was turned off holds only what was written
    /// before it, and one read after is dropped; the app's own engine checks the switch before it sends, too).
    ///
    /// - Parameters:
    ///   - context: Why the engine sends.
    ///   - syncEngine: The engine.
    /// - Returns: The batch, or `nil` when there is nothing to send or sync was turned off.
    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard let mirror = target.withLock({ $0.mirror }) else { return nil }
        let batch = await mirror.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
        guard isSyncWanted() else { return nil }
        return batch
    }

    /// The mirror's options for the next fetch.
    ///
    /// - Parameters:
    ///   - context: Why the engine fetches.
    ///   - syncEngine: The engine.
    /// - Returns: The options.
    func nextFetchChangesOptions(
        _ context: PSSyncEngine.FetchChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.FetchChangesOptions {
        guard let mirror = target.withLock({ $0.mirror }) else { return context.options }
        return await mirror.nextFetchChangesOptions(context, syncEngine: syncEngine)
    }
}

import PrivateSyncFileSystem
import PrivateSyncTesting
import Synchronization
import Testing

/// Two cycles of one device at once (two `sync now`, the app and another instance of it): each fetched and applied
/// the same pages, and after an expired token the second's reconciliation deleted every synced record the first
/// had marked seen (1,000 synced notes left 200 on the device, status "up to date"). Now a cycle holds the device's
/// cycle lock, across processes, and a page is applied only on top of the token it was fetched from.
@Suite("Sync engine: concurrent cycles of one device")
struct SyncEngineConcurrentCycleTests {
    @Test("a cycle skips while another cycle of the device (here, another process's) holds its lock")
    func cycleSkipsWhileAnotherHoldsTheLock() async throws {
        let (_, phone) = try launchedPhone()
        try phone.checkIn(1)
        let lock = try FileLock.exclusive(phone.stores.userCreated.configuration.directory)
        let skipped = try #require(await phone.sync(force: true))
        #expect(skipped.skippedBecause == .alreadyRunning)
        #expect(try phone.stores.userCreated.pendingChanges().count == 1, "nothing was sent")
        lock.unlock()
        let ran = try #require(await phone.sync(force: true))
        #expect(ran.ran && ran.sentSaves == 1)
    }

    @Test("a page fetched from a token another cycle moved meanwhile is not applied")
    func overtakenPageIsNotApplied() async throws {
        let world = try makeWorld("phone", "tablet")
        let tablet = try world.launch("tablet")
        let (phone, container) = try InterferingContainer.launch(world, "phone")
        await phone.sync()
        for mood in 1...3 { try tablet.checkIn(Int64(mood)) }
        await tablet.sync()
        // While the phone's fetch is in flight, another cycle of the phone applies a page: the token moves.
        let store = phone.stores.userCreated
        container.afterZoneFetch.withLock {
            $0 = {
                try? store.syncTransaction { transaction in
                    try transaction.updateEngineState { $0.zoneChangeToken = ChangeToken(bytes: [9, 9]) }
                }
            }
        }
        let report = try #require(await phone.sync(force: true))
        #expect(report.stoppedBecause == .overtakenByAnotherCycle)
        #expect(try store.records().isEmpty, "nothing of the overtaken page was applied")
        #expect(try phone.engineState().zoneChangeToken == ChangeToken(bytes: [9, 9]), "the other's token stands")
    }

    @Test("a full fetch after a reset marks every page's records: nothing synced is sent again")
    func resetFullFetchOverManyPagesResendsNothing() async throws {
        let world = try makeWorld("phone")
        let (phone, _) = try InterferingContainer.launch(world, "phone", zonePageSize: 2)
        for mood in 1...7 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        #expect(try phone.stores.userCreated.pendingChanges().isEmpty)
        try phone.resetSyncBookkeeping()
        let report = try #require(await phone.sync(force: true))
        #expect(report.fetchedModifications == 7, "four pages of two")
        #expect(report.sentSaves == 0, "records the server returned on pages after the first were queued again")
    }
}

import PrivateSyncTesting
import Testing

@testable import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A backlog larger than a cycle sends goes in several cycles, each due at once, and nothing is lost or sent twice.
@Suite("Sync engine: a backlog larger than one cycle")
struct SyncEngineBacklogTests {
    @Test("a cycle stops after its limit of items; the next is due at once and sends the rest")
    func backlogGoesInSeveralCycles() async throws {
        let (world, phone) = try launchedPhone()
        for mood in 0..<10 { try phone.checkIn(Int64(mood % 5)) }
        try phone.stores.userCreated.syncTransaction { try $0.updateEngineState { $0.reducedBatchSize = 4 } }
        let app = try #require(phone.engine)
        let engine = SyncEngine(
            store: phone.stores.userCreated, container: app.container, zoneID: app.zoneID, clock: app.clock,
            resolver: app.resolver, retryPolicy: app.retryPolicy, observer: nil, isSyncWanted: { true },
            maximumItemsPerCycle: 5)
        // Batches of 4: the first cycle sends two of them (8 items, the limit passed), the second the last 2.
        let first = await engine.sync(force: true)
        #expect(first.outcome == .succeeded)
        #expect(first.sentSaves == 8)
        #expect(try phone.stores.userCreated.pendingChangeCount() == 2)
        #expect(first.nextRun == app.clock.now(), "the rest is due at once")
        let second = await engine.sync(force: true)
        #expect(second.sentSaves == 2 && second.outcome == .succeeded)
        #expect(try phone.stores.userCreated.pendingChangeCount() == 0)
        #expect(second.nextRun == nil)
        #expect(try world.containerRecords(account: "alice").count == 10)
    }
}

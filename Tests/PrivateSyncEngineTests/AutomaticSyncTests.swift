import Foundation
import PrivateSyncEngineTesting
import Synchronization
import Testing

/// `automaticallySync`: the engine schedules its own sends, fetches and retries on a scheduler the test drives.
@Suite("Automatic sync")
struct AutomaticSyncTests {
    @Test("with automatic sync off nothing runs by itself")
    func offRunsNothing() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(["a": "1"])
        await cloud.scheduler.runUntilIdle()
        #expect(try cloud.notes(of: "alice").isEmpty)
        #expect(phone.delegate.events == ["stateUpdate"])
    }

    @Test("with automatic sync on, a launch fetches, added changes are sent, and another device's write arrives")
    func onSyncsByItself() async throws {
        let cloud = try SyncEngineTestCloud()
        let devices = try await EngineHarness.syncingByThemselves("phone", "tablet", on: cloud)
        let (phone, tablet) = (devices[0], devices[1])
        #expect(phone.delegate.events.contains("didFetchChanges"))
        phone.write(["a": "1"])
        await cloud.scheduler.runUntilIdle()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
        // No push reaches the tablet for the phone's own save (only other clients' writes push here).
        #expect(tablet.delegate.notes.isEmpty)
        let record = PSRecord(recordType: "Note", recordID: NotesDelegate.recordID("b"))
        record["text"] = "2"
        try await cloud.otherClient(of: "alice").save(record)
        await cloud.scheduler.runUntilIdle()
        #expect(tablet.delegate.notes == ["a": "1", "b": "2"])
        try tablet.engine.expectNothingPending()
    }

    @Test("a retry waits the time the server asked for")
    func honoursRetryAfter() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud, automaticallySync: true)
        await cloud.scheduler.runUntilIdle()
        let start = cloud.clock.now()
        cloud.faults.add(Fault(.rateLimited, retryAfter: 30), device: "phone", after: 1)
        phone.write(["a": "1"])
        await cloud.scheduler.runDue()
        #expect(try cloud.notes(of: "alice").isEmpty)
        #expect(cloud.scheduler.nextDueDate == start.addingTimeInterval(30))
        cloud.clock.advance(by: 29)
        await cloud.scheduler.runDue()
        #expect(try cloud.notes(of: "alice").isEmpty)
        cloud.clock.advance(by: 1)
        await cloud.scheduler.runDue()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }

    @Test("retries without a wait from the server back off: 1, 2, 4, 8 seconds")
    func backsOff() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud, automaticallySync: true)
        await cloud.scheduler.runUntilIdle()
        // Every call of the phone's next four sends fails: the account check first.
        cloud.faults.add(Fault(.networkUnavailable), device: "phone", count: 4)
        phone.write(["a": "1"])
        var waits: [Double] = []
        for _ in 0..<4 {
            let before = cloud.clock.now()
            await cloud.scheduler.runDue()
            guard let next = cloud.scheduler.nextDueDate else { break }
            waits.append(next.timeIntervalSince(before))
            cloud.clock.advance(to: next)
        }
        #expect(waits == [1, 2, 4, 8])
        await cloud.scheduler.runDue()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }

    @Test("the scheduler runs engines in the order they were made, whatever the order of their requests")
    func deterministicOrder() async throws {
        let cloud = try SyncEngineTestCloud()
        let devices = try await EngineHarness.syncingByThemselves("first", "second", on: cloud)
        let (first, second) = (devices[0], devices[1])
        second.write(["s": "2"])
        first.write(["f": "1"])
        let order = Mutex<[String]>([])
        for (name, harness) in [("first", first), ("second", second)] {
            harness.delegate.onEvent.withLock { hook in
                hook = { event, _ in
                    if case .willSendChanges = event { order.withLock { $0.append(name) } }
                }
            }
        }
        await cloud.scheduler.runUntilIdle()
        #expect(order.withLock { $0 } == ["first", "second"])
    }

    @Test("an account that comes back is looked at again at once, as CKAccountChanged makes an app do")
    func accountBack() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud, automaticallySync: true)
        await cloud.scheduler.runUntilIdle()
        phone.device.setAccountStatus(.temporarilyUnavailable)
        phone.write(["a": "1"])
        await cloud.scheduler.runUntilIdle()
        #expect(try cloud.notes(of: "alice").isEmpty)
        #expect(cloud.scheduler.nextDueDate == nil)
        phone.device.setAccountStatus(.available)
        await cloud.scheduler.runUntilIdle()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }
}

import Foundation
import PrivateSyncTesting
import Synchronization
import Testing

// Written against docs/testing.md alone, as a team adopting PrivateSyncTesting would: a journal app's own schema,
// its own conflict policy, skewed clocks, a wrapped container, and an exit test. Whatever did not compile from the
// page alone was fixed in the page.

/// A journal: entries sync, reading statistics stay on the device.
private func journal() throws -> SyncPartition {
    let schema = try Schema(
        name: "Journal",
        recordTypes: [
            RecordTypeSchema(
                name: "Entry",
                fields: [
                    FieldSchema(name: "title", type: .string),
                    FieldSchema(name: "written", type: .date),
                    FieldSchema(name: "tags", type: .list(.string), isOptional: true),
                ]),
            RecordTypeSchema(name: "ReadingStats", fields: [FieldSchema(name: "minutes", type: .int64)]),
        ])
    return try SyncPartition(schema: schema, userCreated: ["Entry"], localOnly: ["ReadingStats"])
}

/// Counts modify requests and can fail the next one.
private final class Flaky: ForwardingContainer {
    let base: any PrivateContainer
    let failNext = Mutex(false)
    let modifies = Mutex(0)
    init(base: any PrivateContainer) { self.base = base }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        modifies.withLock { $0 += 1 }
        if failNext.withLock({
            let fail = $0; $0 = false; return fail
        }) {
            throw CloudError(.networkFailure, "injected by the test")
        }
        return try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
    }
}

@Suite("A team's tests, written from docs/testing.md alone")
struct TeamExampleTests {
    private func entry(_ title: String, _ world: TestWorld) -> [String: FieldValue] {
        ["title": .string(title), "written": .date(world.clock.now())]
    }

    @Test("an entry syncs with its tags; a cleared tag list syncs as cleared; stats stay home")
    func entriesSyncStatsStayHome() async throws {
        let world = try TestWorld(partition: try journal())
        try world.addDevice("phone", account: "alice", sync: true)
        try world.addDevice("laptop", account: "alice", sync: true)
        let phone = try world.launch("phone")
        let laptop = try world.launch("laptop")
        var fields = entry("Day one", world)
        fields["tags"] = .list([.string("travel")])
        let added = try phone.add("Entry", name: "day-1", fields: fields)
        try phone.add("ReadingStats", fields: ["minutes": .int64(25)])
        #expect(try #require(await phone.sync()).sentSaves == 1)
        await laptop.sync()
        #expect(try laptop.find("day-1")?.record.fields["tags"] == .list([.string("travel")]))
        #expect(try laptop.find("day-1")?.partition == .userCreated)

        try laptop.edit(added.name, setting: ["tags": nil as FieldValue?])
        await laptop.sync()
        await phone.sync()
        #expect(try phone.find("day-1")?.record.fields["tags"] == nil)
        #expect(try world.audit(accounts: ["alice"]).isClean)
        #expect(try world.containerRecords(account: "alice").map(\.recordType) == ["Entry"])
    }

    @Test("a laptop five minutes behind loses a title it wrote later in world time")
    func skewedClockLoses() async throws {
        let world = try TestWorld(partition: try journal())
        try world.addDevice("phone", account: "alice", sync: true)
        try world.addDevice("laptop", account: "alice", sync: true)
        world.clock(of: "laptop").setOffset(-300)
        let phone = try world.launch("phone")
        let laptop = try world.launch("laptop")
        try phone.add("Entry", name: "e", fields: entry("First", world))
        await phone.sync()
        await laptop.sync()
        world.clock.advance(by: 60)
        try phone.edit("e", setting: ["title": .string("Phone's")])
        world.clock.advance(by: 60)
        try laptop.edit("e", setting: ["title": .string("Laptop's")])
        await laptop.sync()
        await phone.sync()
        await laptop.sync()
        #expect(try laptop.find("e")?.record.fields["title"] == .string("Phone's"))
    }

    @Test("events name their device; a wrapped container's failure is retried on the policy given")
    func eventsAndWrappedContainer() async throws {
        let events = Mutex<[(String, SyncEvent)]>([])
        let world = try TestWorld(
            partition: try journal(),
            deviceObserver: { device, event in events.withLock { $0.append((device, event)) } })
        try world.addDevice("phone", account: "alice", sync: true)
        let flaky = Mutex<Flaky?>(nil)
        let phone = try world.launch(
            "phone",
            wrapContainer: { base in
                let wrapper = Flaky(base: base)
                flaky.withLock { $0 = wrapper }
                return wrapper
            }, retryPolicy: RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 60))
        #expect(phone.container is Flaky)
        try phone.add("Entry", fields: entry("Offline", world))
        flaky.withLock { $0?.failNext.withLock { $0 = true } }
        let failed = try #require(await phone.sync())
        #expect(failed.outcome == .retrying(.networkFailure))
        #expect(try phone.status().pendingChanges == 1)
        world.clock.advance(by: 10)
        #expect(try #require(await phone.sync()).sentSaves == 1)
        #expect(flaky.withLock { $0?.modifies.withLock { $0 } } == 2)
        #expect(events.withLock { $0.allSatisfy { $0.0 == "phone" } && !$0.isEmpty })
    }

    @Test("after a switch to bob, start afresh keeps alice's entries apart and sync resumes")
    func accountSwitch() async throws {
        let world = try TestWorld(partition: try journal())
        try world.addDevice("phone", account: "alice", sync: true)
        var phone = try world.launch("phone")
        try phone.add("Entry", fields: entry("Alice's", world))
        await phone.sync()
        try world.device("phone").signIn(try AccountID("bob"))
        await phone.sync()
        #expect(try phone.status().state == .paused(.accountChanged))
        #expect(try phone.startFreshForSignedInAccount().records == 1)
        phone = try phone.setSyncEnabled(true)
        try phone.add("Entry", fields: entry("Bob's", world))
        await phone.sync()
        #expect(try world.containerRecords(account: "bob").map { $0.fields["title"] } == [.string("Bob's")])
    }

    @Test("a launch that traps leaves no folder once the leftovers are removed")
    func trapLeavesNothing() async throws {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            let world = try! TestWorld()
            try! world.addDevice("phone", account: "alice", sync: true, entitlement: false)
            _ = try! world.launch("phone", options: .init(skipEntitlementCheck: true))
        }
        TestWorld.removeLeftovers()
    }
}

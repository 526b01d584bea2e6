import PrivateSyncEngineTesting
import Synchronization
import Testing

/// The order of events CKSyncEngine documents, one at a time, every `will…` paired with one `did…`, and
/// `fetchChanges`/`sendChanges` returning only once every event was handled.
@Suite("Event order")
struct EventOrderTests {
    @Test("a first send posts the sign-in, then will, the zone, the batch, did and the state")
    func firstSendOrder() async throws {
        let phone = try await EngineHarness.sent(["a": "1"], on: SyncEngineTestCloud())
        #expect(
            phone.delegate.events == [
                "stateUpdate", "accountChange(signIn)", "stateUpdate", "willSendChanges", "sentDatabaseChanges",
                "sentRecordZoneChanges", "didSendChanges", "stateUpdate",
            ])
        #expect(phone.delegate.notes == ["a": "1"])
    }

    @Test("a fetch posts the database changes, then each zone between its will and did, then did")
    func fetchOrder() async throws {
        let cloud = try SyncEngineTestCloud()
        let writer = try cloud.otherClient(of: "alice")
        for zone in ["Beta", "Alpha"] {
            try await writer.save(PSRecordZone(zoneName: zone))
            let record = PSRecord(recordType: "Note", recordID: PSRecord.ID(zoneID: PSRecordZone.ID(zoneName: zone)))
            record["text"] = zone
            try await writer.save(record)
        }
        let phone = try EngineHarness(cloud: cloud)
        try await phone.engine.fetchChanges()
        #expect(
            phone.delegate.events == [
                "accountChange(signIn)", "stateUpdate", "willFetchChanges", "fetchedDatabaseChanges", "stateUpdate",
                "willFetchRecordZoneChanges(Beta)", "fetchedRecordZoneChanges", "stateUpdate",
                "didFetchRecordZoneChanges(Beta)", "willFetchRecordZoneChanges(Alpha)", "fetchedRecordZoneChanges",
                "stateUpdate", "didFetchRecordZoneChanges(Alpha)", "didFetchChanges",
            ])
        #expect(phone.engine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)
    }

    @Test("the delegate's prioritized zones are fetched first, and its options are asked before each zone")
    func prioritizedZones() async throws {
        let cloud = try SyncEngineTestCloud()
        let writer = try cloud.otherClient(of: "alice")
        for zone in ["A", "B", "C"] { try await writer.save(PSRecordZone(zoneName: zone)) }
        let phone = try EngineHarness(cloud: cloud)
        phone.delegate.fetchOptionsOverride.withLock { override in
            override = { context in
                var options = context.options
                options.prioritizedZoneIDs = [PSRecordZone.ID(zoneName: "C"), PSRecordZone.ID(zoneName: "B")]
                return options
            }
        }
        try await phone.engine.fetchChanges()
        #expect(
            phone.delegate.events.filter { $0.hasPrefix("willFetchRecordZoneChanges") } == [
                "willFetchRecordZoneChanges(C)", "willFetchRecordZoneChanges(B)", "willFetchRecordZoneChanges(A)",
            ])
        // Once before each of the three zones, and once more to learn there is none left.
        #expect(phone.delegate.fetchOptionsAsked.withLock { $0 } == 4)
    }

    @Test("a fetch leaves a zone out of its scope for later")
    func fetchScope() async throws {
        let cloud = try SyncEngineTestCloud()
        let writer = try cloud.otherClient(of: "alice")
        for zone in ["In", "Out"] { try await writer.save(PSRecordZone(zoneName: zone)) }
        let phone = try EngineHarness(cloud: cloud)
        try await phone.engine.fetchChanges(.init(scope: .allExcluding([PSRecordZone.ID(zoneName: "Out")])))
        #expect(phone.delegate.events.contains("willFetchRecordZoneChanges(In)"))
        #expect(!phone.delegate.events.contains("willFetchRecordZoneChanges(Out)"))
        #expect(phone.engine.state.zoneIDsWithUnfetchedServerChanges == [PSRecordZone.ID(zoneName: "Out")])
    }

    @Test(
        "every will is followed by exactly one did, when a request fails too",
        arguments: [FaultKind.networkUnavailable, .serviceUnavailable, .zoneBusy])
    func willDidPairs(fault: FaultKind) async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try await EngineHarness.sent(["a": "1"], on: cloud)
        let writer = try cloud.otherClient(of: "alice")
        let record = PSRecord(recordType: "Note", recordID: NotesDelegate.recordID("b"))
        record["text"] = "2"
        try await writer.save(record)
        phone.delegate.clearEvents()
        // The fetch's zone request fails (after userRecordID and databaseChanges, for a fault any call meets), then
        // the send's modify request (after userRecordID).
        let anyCall = fault != .zoneBusy
        cloud.faults.add(Fault(fault, retryAfter: 5), device: "phone", after: anyCall ? 2 : 0)
        await #expect(throws: PSError.self) { try await phone.engine.fetchChanges() }
        phone.write(["c": "3"])
        cloud.faults.add(Fault(fault, retryAfter: 5), device: "phone", after: anyCall ? 1 : 0)
        await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        let events = phone.delegate.events
        for (will, did) in [
            ("willFetchChanges", "didFetchChanges"), ("willSendChanges", "didSendChanges"),
            ("willFetchRecordZoneChanges(Notes)", "didFetchRecordZoneChanges(Notes)"),
        ] {
            #expect(events.filter { $0 == will }.count == events.filter { $0 == did }.count, "\(will) in \(events)")
        }
        #expect(events.contains("willSendChanges"))
        #expect(events.contains("willFetchRecordZoneChanges(Notes)"))
    }

    @Test("events never overlap, though a fetch and a send are asked for at once")
    func eventsOneAtATime() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(Dictionary(uniqueKeysWithValues: (0..<50).map { ("n\($0)", "\($0)") }))
        async let fetch: Void = phone.engine.fetchChanges()
        async let send: Void = phone.engine.sendChanges()
        _ = try await (fetch, send)
        #expect(!phone.delegate.overlapped)
        #expect(phone.delegate.events.contains("didSendChanges"))
        #expect(phone.delegate.events.contains("didFetchChanges"))
    }

    @Test("sendChanges returns only after its last event was handled")
    func returnsAfterEveryEvent() async throws {
        let phone = try await EngineHarness.sent(["a": "1"], on: SyncEngineTestCloud())
        // The delegate suspends in every handler: had the engine not waited, the last events would be missing.
        #expect(phone.delegate.events.suffix(2) == ["didSendChanges", "stateUpdate"])
        let (_, relaunched) = phone.relaunched()
        #expect(relaunched.state.pendingRecordZoneChanges.isEmpty)
    }

    @Test("a send with nothing to send posts nothing")
    func emptySend() async throws {
        let phone = try await EngineHarness.sent(["a": "1"], on: SyncEngineTestCloud())
        phone.delegate.clearEvents()
        try await phone.engine.sendChanges()
        #expect(phone.delegate.events.isEmpty)
    }
}

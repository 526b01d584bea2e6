import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: the partition")
struct SyncEnginePartitionTests {
    @Test("local-only records never reach the container, whatever the switch says")
    func localOnlyStaysHome() async throws {
        let (world, phone) = try launchedPhone()
        for value in 0..<5 { try phone.baseline(Double(value)) }
        try phone.checkIn(4)
        await syncUntilQuiet([phone])
        #expect(try world.containerRecords(account: "alice").map(\.recordType) == ["CheckIn"])
        #expect(try phone.stores.localOnly.count() == 5)
        #expect(try world.audit(accounts: ["alice"]).isClean)
    }

    @Test("the send path itself refuses a local-only type, however it got into the queue")
    func sendPathRefusesLocalOnlyTypes() async throws {
        let (world, phone) = try launchedPhone()
        // Bypass the API: write a local-only record and its pending change straight into the user-created store.
        let smuggled = StoredRecord(
            name: "SMUGGLED", type: "Baseline",
            fields: [
                "metric": .string("hrv"), "value": .double(1), "computedAt": .date(world.clock.now()),
                "windowDays": .int64(7),
            ],
            fieldVersions: FieldVersions(), origin: nil, createdAt: world.clock.now(), modifiedAt: world.clock.now())
        try phone.stores.userCreated.syncTransaction { state in
            try state.putRecord(smuggled, serverFields: nil)
            try state.queue(.save, name: "SMUGGLED", type: "Baseline")
        }
        let report = try #require(await phone.sync())
        #expect(report.events.contains(.refusedToSend(recordName: "SMUGGLED", recordType: "Baseline")))
        #expect(try world.containerRecords(account: "alice").isEmpty)
        #expect(try phone.stores.userCreated.pendingChangeCount() == 0)
    }

    @Test("a fetched record of a local-only type is never taken into the user-created store")
    func fetchIgnoresLocalOnlyTypes() async throws {
        let (_, phone) = try launchedPhone()
        await phone.sync()
        // Another client put a Baseline in the zone.
        let intruder = try #require(phone.container)
        var record = try Record(
            recordType: "Baseline",
            recordID: RecordID(recordName: "FOREIGN", zoneID: ZoneID(SyncEngine.defaultZoneName)))
        record["value"] = .double(1)
        _ = try await intruder.modifyRecords(saving: [record], deleting: [])
        let report = try #require(await phone.sync())
        #expect(report.events.contains(.ignoredFetchedRecord(recordName: "FOREIGN", recordType: "Baseline")))
        #expect(try phone.stores.userCreated.record(named: "FOREIGN") == nil)
    }
}

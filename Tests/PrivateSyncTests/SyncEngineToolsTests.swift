import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a test can see and do around a cycle: the request log, half cycles, a reset of the bookkeeping, and a
/// convergence audit.
@Suite("Sync engine: request log, half cycles, reset, convergence")
struct SyncEngineToolsTests {
    @Test("the request log lists every container call in order, with each item's outcome and the fault that struck")
    func requestLog() async throws {
        let (world, phone) = try launchedPhone()
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        try world.inject(.partialFailure)
        let report = try #require(await phone.sync())
        let operations = report.requests.map(\.operation)
        #expect(Array(operations.prefix(4)) == [.accountStatus, .userRecordID, .databaseChanges, .saveZones])
        let modifies = report.requests.filter { $0.operation == .modifyRecords }
        #expect(modifies.count == 2)
        #expect(modifies[0].items.count == 3 && modifies[0].fault == "partial-failure")
        #expect(
            modifies[0].items.compactMap(\.error).sorted { $0.rawValue < $1.rawValue } == [
                .serverRejectedRequest, .batchRequestFailed, .batchRequestFailed,
            ])
        #expect(modifies[1].items.count == 2 && modifies[1].items.allSatisfy { $0.error == nil })
        #expect(modifies.allSatisfy { $0.batchSize == 400 })
    }

    @Test("a fetch-only half cycle leaves the merged edit pending; a send-only one sends without fetching")
    func halfCycles() async throws {
        let (_, phone, _, shared) = try await phoneEditWaitingBehindTabletsEdit()
        let fetched = try #require(await phone.fetchChanges())
        #expect(fetched.requests.allSatisfy { $0.operation != .modifyRecords })
        #expect(fetched.conflictsResolved == 1)
        let merged = try #require(try phone.stores.userCreated.record(named: shared))
        #expect(merged.fields["note"] == .string("tablet") && merged.fields["mood"] == .int64(9))
        #expect(try phone.stores.userCreated.pendingChangeCount() == 1, "the merge still waits to go up")
        let sent = try #require(await phone.sendChanges())
        #expect(sent.requests.allSatisfy { $0.operation != .recordZoneChanges })
        #expect(sent.sentSaves == 1)
    }

    @Test("a reset of the bookkeeping keeps every record, duplicates none, and sends what the server lacks")
    func resetKeepsTheData() async throws {
        let (world, phone, synced) = try await syncedPhone(checkIns: 3)
        // The server loses the zone (no tombstones survive), and one record was never sent.
        let zone = try #require(phone.engine?.zoneID)
        try await phone.container!.deleteZones([zone])
        _ = try await phone.container!.saveZones([RecordZone(zoneID: zone)])
        let unsent = try phone.checkIn(4).name
        try phone.resetSyncBookkeeping()
        #expect(try phone.engineState().boundUser == nil)
        #expect(try phone.engineState().zoneChangeToken == nil)
        let report = try #require(await phone.sync())
        #expect(report.events.contains(.requeuedAfterReset(records: 3)))
        await phone.sync()
        let cloud = try world.containerRecords(account: "alice").map(\.recordID.recordName)
        #expect(Set(cloud) == Set(synced + [unsent]))
        #expect(cloud.count == 4, "nothing duplicated")
        #expect(phone.userRecordNames == Set(synced + [unsent]))
    }

    @Test("the convergence audit finds a container edit no pending change explains, and nothing on a converged world")
    func convergenceAudit() async throws {
        let (world, phone) = try launchedPhone()
        let record = try phone.checkIn(1, note: "mine")
        await phone.sync()
        #expect(try world.world.convergenceAudit().allSatisfy(\.isConverged))
        // Another client changes the record in the container; the device has not fetched it.
        var server = try #require(try world.containerRecords(account: "alice").first)
        server["note"] = .string("theirs")
        _ = try await phone.container!.modifyRecords(
            saving: [server], deleting: [], savePolicy: .changedKeys, atomically: false)
        let report = try #require(try world.world.convergenceAudit().first)
        #expect(!report.isConverged)
        #expect(report.differences.map(\.kind) == [.differentFields])
        #expect(report.differences.first?.recordName == record.name)
        await phone.sync()
        #expect(try world.world.convergenceAudit().allSatisfy(\.isConverged))
    }
}

/// The engine's response when the zone goes away for a reason other than the user's choice.
@Suite("Sync engine: the zone gone, by reason")
struct SyncEngineZoneGoneTests {
    @Test("after an encrypted-data reset the device uploads everything again, without asking")
    func encryptedDataResetReuploads() async throws {
        let (world, phone, names) = try await syncedPhone(checkIns: 3)
        try world.inject(.encryptedDataReset)
        // The reset strikes a call of this cycle; the engine learns why from the database changes.
        for _ in 0..<3 { await phone.sync(force: true) }
        #expect(Set(try world.containerRecords(account: "alice").map(\.recordID.recordName)) == Set(names))
        #expect(try phone.status().state == .on(.upToDate))
    }

    @Test(
        "a zone gone without the user, or deleted by them, pauses until the user consents; a forced sync sends nothing")
    func zoneNotFoundPauses() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 3)
        try world.inject(.zoneNotFound)
        try phone.checkIn(9)
        for _ in 0..<3 { await phone.sync(force: true) }
        #expect(try phone.status().pauseReason == .userDeletedZone)
        #expect(try world.containerRecords(account: "alice").isEmpty, "nothing put back without consent")
        let consenting = try phone.setSyncEnabled(false).setSyncEnabled(true)
        await consenting.sync()
        #expect(try world.containerRecords(account: "alice").count == 4)
    }
}

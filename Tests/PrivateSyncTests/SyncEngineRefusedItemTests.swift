import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One item of a request that the container refuses for good, or answers in a way no container should: it is set
/// aside, and the others go on.
@Suite("Sync engine: an item the container refuses or answers wrongly")
struct SyncEngineRefusedItemTests {
    @Test("a record the server rejects for good does not hold back the others")
    func oneRejectedRecordDoesNotBlockTheQueue() async throws {
        let (_, phone, container) = try InterferingContainer.launchPhone()
        await phone.sync()
        // Another client (an older app version) saved CheckIn.note as an int64, so a text note is refused.
        var legacy = try Record(
            recordType: "CheckIn", recordID: RecordID(recordName: "legacy", zoneID: InterferingContainer.engineZone))
        legacy["note"] = .int64(1)
        _ = try await container.base.modifyRecords(saving: [legacy], deleting: [])
        let rejected = try phone.checkIn(1, note: "text")
        for mood in 2...6 { try phone.checkIn(Int64(mood)) }
        let report = try #require(await phone.sync(force: true))
        #expect(report.sentSaves == 5)
        #expect(try phone.stores.userCreated.pendingChanges().map(\.recordName) == [rejected.name])
        guard case .on(.waiting)? = try? phone.status().state else {
            Issue.record("expected on/waiting for the rejected record, got \(try phone.status())")
            return
        }
    }

    @Test("a save the container answers without its system fields is set aside and retried, not a crash")
    func saveAnsweredWithoutSystemFields() async throws {
        let world = try makeWorld("phone")
        let phone = try world.launch("phone") { base in StrippingSystemFields(base: base) }
        let record = try phone.checkIn(1)
        let report = try #require(await phone.sync(force: true))
        #expect(report.outcome == .retrying(.internalError))
        #expect(try phone.stores.userCreated.pendingChanges().map(\.recordName) == [record.name], "still to send")
    }
}

/// A container double that answers every accepted save with the record stripped of its system fields, as no real
/// container does.
private final class StrippingSystemFields: InterceptingContainer {
    let base: any PrivateContainer
    var identifier: ContainerIdentifier { base.identifier }

    init(base: any PrivateContainer) {
        self.base = base
    }

    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        let reply = try await base.perform(call)
        guard case .modified(var result) = reply else { return reply }
        for (id, outcome) in result.saveResults {
            guard case .success(let saved) = outcome else { continue }
            var stripped = Record(recordType: saved.recordType, recordID: saved.recordID, systemFields: nil)
            for key in saved.allKeys { stripped[key] = saved[key] }
            result.saveResults[id] = .success(stripped)
        }
        return .modified(result)
    }
}

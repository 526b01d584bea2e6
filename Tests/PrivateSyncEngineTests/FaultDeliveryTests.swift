import PrivateSyncEngineTesting
import Synchronization
import Testing

/// Every fault the fake container can inject reaches the delegate as CloudKit would deliver it, and a correct
/// delegate converges once faults stop.
@Suite("Faults reaching the delegate")
struct FaultDeliveryTests {
    /// The faults a send's modify request can meet, with the code the delegate must see for the record (`nil`: the
    /// fault changes no outcome the delegate sees, as a request the engine splits after `limitExceeded`).
    static let sendFaults: [(FaultKind, PSError.Code?)] = [
        (.networkUnavailable, .networkUnavailable), (.networkFailure, .networkFailure),
        (.serviceUnavailable, .serviceUnavailable), (.rateLimited, .requestRateLimited), (.zoneBusy, .zoneBusy),
        (.accountTemporarilyUnavailable, .accountTemporarilyUnavailable), (.quotaExceeded, .quotaExceeded),
        (.serverResponseLost, .serverResponseLost), (.partialFailure, .serverRejectedRequest),
        (.itemQuotaExceeded, .quotaExceeded), (.limitExceeded, nil), (.userDeletedZone, .userDeletedZone),
        (.zoneNotFound, .zoneNotFound), (.encryptedDataReset, .zoneNotFound),
    ]

    @Test(
        "a fault at a send reaches the delegate with CloudKit's code, and the devices converge after",
        arguments: sendFaults)
    func sendFault(fault: FaultKind, expected: PSError.Code?) async throws {
        let cloud = try SyncEngineTestCloud()
        let (phone, tablet) = try await EngineHarness.pair(on: cloud, synced: ["a": "1", "b": "1"])
        phone.write(["a": "2", "b": "2"])
        cloud.faults.add(Fault(fault, retryAfter: 3, record: "a"), device: "phone")
        do {
            try await phone.engine.sendChanges()
        } catch let error as PSError {
            let items = error.partialErrorsByItemID ?? [:]
            let code = (items[AnyHashable(NotesDelegate.recordID("a"))] as? PSError)?.code ?? error.code
            #expect(code == expected, "\(error)")
        }
        let failed = phone.delegate.fullEvents.compactMap { event -> PSError.Code? in
            guard case .sentRecordZoneChanges(let sent) = event else { return nil }
            return sent.failedRecordSaves.first { $0.record.recordID.recordName == "a" }?.error.code
        }
        #expect(failed.first == expected)
        #expect(cloud.faults.remaining == 0)
        try await Self.settle([phone, tablet])
        #expect(phone.delegate.notes == tablet.delegate.notes)
        #expect(try cloud.notes(of: "alice") == phone.delegate.notes)
        if fault != .userDeletedZone {
            #expect(phone.delegate.notes == ["a": "2", "b": "2"])
        }
    }

    @Test(
        "a delivery fault at a fetch changes nothing the delegate ends up with",
        arguments: [FaultKind.tokenExpired, .duplicateDelivery, .delayedDelivery, .reorderedPages, .zoneBusy])
    func fetchFault(fault: FaultKind) async throws {
        let limits = CloudLimits(
            maximumItemsPerRequest: 400, maximumRequestBytes: 2 * 1024 * 1024, maximumRecordBytes: 1024 * 1024,
            maximumFieldsPerRecordType: 256, maximumZones: 1000, maximumChangesPerPage: 3)
        let cloud = try SyncEngineTestCloud(limits: limits)
        let (phone, tablet) = try await EngineHarness.pair(
            on: cloud, synced: Dictionary(uniqueKeysWithValues: (0..<5).map { ("n\($0)", "\($0)") }))
        phone.write(Dictionary(uniqueKeysWithValues: (0..<8).map { ("n\($0)", "v\($0)") }))
        try await phone.engine.sendChanges()
        cloud.faults.add(Fault(fault, retryAfter: 2), device: "tablet", count: 2)
        try? await tablet.engine.fetchChanges()
        try await Self.settle([phone, tablet])
        #expect(tablet.delegate.notes == phone.delegate.notes)
        #expect(tablet.delegate.notes.count == 8)
    }

    /// Sends and fetches on every device until nothing is left anywhere, as every device syncing once faults stop.
    static func settle(_ devices: [EngineHarness]) async throws {
        for _ in 0..<10 {
            for device in devices {
                try? await device.engine.sendChanges()
                try? await device.engine.fetchChanges()
            }
            if devices.allSatisfy({ (try? $0.engine.expectNothingPending(includingUnfetchedZones: true)) != nil }) {
                for device in devices { try await device.engine.fetchChanges() }
                return
            }
        }
        for device in devices { try device.engine.expectNothingPending() }
    }
}

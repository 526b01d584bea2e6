import PrivateSyncEngineTesting
import Synchronization
import Testing

/// Atomic batches, CloudKit's request limits, and the batch built from pending changes.
@Suite("Batches")
struct BatchTests {
    /// A phone with notes a and b on the server, and a tablet that overwrote a since, so that the phone's next save
    /// of a conflicts.
    static func conflictOnA() async throws -> (SyncEngineTestCloud, EngineHarness) {
        let cloud = try SyncEngineTestCloud()
        let (phone, tablet) = try await EngineHarness.pair(on: cloud, synced: ["a": "1", "b": "1"])
        tablet.write(["a": "tablet"])
        try await tablet.engine.sendChanges()
        phone.write(["a": "2", "b": "2"])
        return (cloud, phone)
    }

    @Test("in an atomic batch one failure fails the zone's other changes with batchRequestFailed, and drops them")
    func atomicByZone() async throws {
        let (cloud, phone) = try await Self.conflictOnA()
        phone.delegate.atomicBatches.withLock { $0 = true }
        phone.delegate.reAddsFailures.withLock { $0 = false }
        let error = await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        let items = error?.partialErrorsByItemID ?? [:]
        #expect((items[AnyHashable(NotesDelegate.recordID("a"))] as? PSError)?.code == .serverRecordChanged)
        #expect((items[AnyHashable(NotesDelegate.recordID("b"))] as? PSError)?.code == .batchRequestFailed)
        #expect(phone.engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(try cloud.notes(of: "alice") == ["a": "tablet", "b": "1"])
    }

    @Test("a device that forces atomicity makes a batch that did not ask for it atomic")
    func forcedAtomicity() async throws {
        let (cloud, phone) = try await Self.conflictOnA()
        phone.delegate.reAddsFailures.withLock { $0 = false }
        phone.device.forcesAtomicByZone = true
        await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        #expect(try cloud.notes(of: "alice") == ["a": "tablet", "b": "1"])
        phone.device.forcesAtomicByZone = false
        phone.write(["b": "2"])
        try await phone.engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "tablet", "b": "2"])
    }

    @Test("a batch the delegate puts together over CloudKit's 400 changes fails each change with limitExceeded")
    func customBatchOverTheLimit() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(Dictionary(uniqueKeysWithValues: (0..<401).map { ("n\($0)", "\($0)") }))
        phone.delegate.batchOverride.withLock { override in
            override = { _, engine in
                let records = engine.state.pendingRecordZoneChanges.map { change -> PSRecord in
                    guard case .saveRecord(let id) = change else { preconditionFailure() }
                    let record = PSRecord(recordType: "Note", recordID: id)
                    record["text"] = "x"
                    return record
                }
                return records.isEmpty ? nil : PSSyncEngine.RecordZoneChangeBatch(recordsToSave: records)
            }
        }
        let error = await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        let codes = Set((error?.partialErrorsByItemID ?? [:]).values.compactMap { ($0 as? PSError)?.code })
        #expect(codes == [.limitExceeded])
        #expect(error?.partialErrorsByItemID?.count == 401)
        #expect(try cloud.notes(of: "alice").isEmpty)
    }

    @Test("a batch built from pending changes is split when the server takes fewer changes a request")
    func engineSizedBatchSplits() async throws {
        let limits = CloudLimits(
            maximumItemsPerRequest: 3, maximumRequestBytes: 2 * 1024 * 1024, maximumRecordBytes: 1024 * 1024,
            maximumFieldsPerRecordType: 256, maximumZones: 1000, maximumChangesPerPage: 4)
        let cloud = try SyncEngineTestCloud(limits: limits)
        let phone = try EngineHarness(cloud: cloud, device: "phone")
        let notes = Dictionary(uniqueKeysWithValues: (0..<20).map { ("n\($0)", "\($0)") })
        phone.write(notes)
        try await phone.engine.sendChanges()
        try phone.engine.expectNothingPending()
        #expect(try cloud.notes(of: "alice") == notes)
        // Pages of four: a fetch of twenty changes takes five pages, each with its own event.
        let tablet = try EngineHarness(cloud: cloud, device: "tablet")
        try await tablet.engine.fetchChanges()
        #expect(tablet.delegate.notes == notes)
        #expect(tablet.delegate.events.filter { $0 == "fetchedRecordZoneChanges" }.count == 5)
    }

    @Test("a record too large for CloudKit fails alone with limitExceeded, and the others go")
    func oversizedRecord() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(["big": String(repeating: "x", count: 1024 * 1024 + 1), "small": "s"])
        let error = await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        #expect(error?.partialErrorsByItemID?.count == 1)
        #expect(
            (error?.partialErrorsByItemID?[AnyHashable(NotesDelegate.recordID("big"))] as? PSError)?.code
                == .limitExceeded)
        #expect(try cloud.notes(of: "alice") == ["small": "s"])
    }

    @Test(
        "the batch built from pending changes walks them in order, skips what the provider declines, and stops at 400")
    func batchFromPendingChanges() async throws {
        let ids = (0..<450).map { NotesDelegate.recordID("n\($0)") }
        let changes = ids.map { PSSyncEngine.PendingRecordZoneChange.saveRecord($0) } + [.deleteRecord(ids[0])]
        let batch = try #require(
            await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { id in
                id.recordName == "n1" ? nil : PSRecord(recordType: "Note", recordID: id)
            })
        #expect(batch.recordsToSave.count == 400)
        #expect(batch.recordsToSave.first?.recordID == ids[0])
        #expect(!batch.recordsToSave.contains { $0.recordID == ids[1] })
        #expect(batch.recordIDsToDelete.isEmpty)
        #expect(
            await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: changes.prefix(1).map { $0 }) { _ in nil } == nil)
    }
}

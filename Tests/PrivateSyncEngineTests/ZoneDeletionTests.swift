import PrivateSyncEngineTesting
import Testing

/// Zones deleted on the server reach the delegate with their reason, as CloudKit reports them.
@Suite("Zone deletions")
struct ZoneDeletionTests {
    @Test(
        "a zone deleted on the server is reported with its reason, and forgotten",
        arguments: [PSDatabase.DatabaseChange.Deletion.Reason.deleted, .purged, .encryptedDataReset])
    func deletionReason(reason: PSDatabase.DatabaseChange.Deletion.Reason) async throws {
        let cloud = try SyncEngineTestCloud()
        let (_, tablet) = try await EngineHarness.pair(on: cloud, synced: ["a": "1"])
        #expect(tablet.delegate.notes == ["a": "1"])

        try await cloud.deleteZone(NotesDelegate.zoneID, reason: reason, account: "alice")
        try await tablet.engine.fetchChanges()
        let deletions = tablet.delegate.fullEvents.flatMap { event -> [PSDatabase.DatabaseChange.Deletion] in
            guard case .fetchedDatabaseChanges(let changes) = event else { return [] }
            return changes.deletions
        }
        #expect(deletions == [PSDatabase.DatabaseChange.Deletion(zoneID: NotesDelegate.zoneID, reason: reason)])
        #expect(tablet.delegate.notes.isEmpty)
        #expect(tablet.engine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)
        #expect(try cloud.records(of: "alice").isEmpty)
    }

    @Test("a save into a zone the user deleted in Settings fails with userDeletedZone")
    func saveAfterPurge() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try await EngineHarness.sent(["a": "1"], on: cloud)
        try await cloud.deleteZone(NotesDelegate.zoneID, reason: .purged, account: "alice")
        phone.engine.state.add(pendingRecordZoneChanges: [.saveRecord(NotesDelegate.recordID("a"))])
        let error = await #expect(throws: PSError.self) { try await phone.engine.sendChanges() }
        let item = error?.partialErrorsByItemID?[AnyHashable(NotesDelegate.recordID("a"))] as? PSError
        #expect(item?.code == .userDeletedZone)
        #expect(phone.engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(try cloud.records(of: "alice").isEmpty)
    }
}

import ContactsSample
import Foundation
import PrivateSyncEngineTesting
import Testing

/// What makes a sweep of Apple's sample (the port) replay a seed exactly from one process to the next.
@Suite("Apple's sample, replayed across processes")
struct SampleReplayTests {
    @Test("a sign-in queues the contacts kept here in a fixed order, not in a dictionary's, which each process seeds")
    func signInQueuesInAFixedOrder() async throws {
        let cloud = try SyncEngineTestCloud()
        let folder = try ScratchFolder()
        let device = try cloud.device("phone", signedInTo: nil)
        let database = SyncedDatabase(
            database: device.database, dataURL: folder.file("phone.json"), automaticallySync: false,
            scheduler: cloud.scheduler)
        // Saved signed out, in an order that is not the sorted one.
        let contacts = (0..<8).map { Contact(name: "\($0)", userModificationDate: cloud.clock.now()) }
        await database.saveContacts(contacts.sorted { $0.id > $1.id })
        try device.signIn("alice")
        // The fetch hears the sign-in: the sample queues every contact for the account. In a dictionary's order,
        // the batches (and the faults that strike them) changed from process to process (seed 72 of 300).
        try await database.syncEngine.fetchChanges()
        let queued = await database.syncEngine.state.pendingRecordZoneChanges.compactMap { change -> String? in
            if case .saveRecord(let id) = change { id.recordName } else { nil }
        }
        #expect(queued == contacts.map(\.id).sorted())
    }
}

import PrivateSyncEngineTesting
import Synchronization
import Testing

/// `cancelOperations()`: the operation in progress stops at its next step, posts its `did…`, and keeps what it did
/// not send.
@Suite("Cancelling")
struct CancelTests {
    @Test("a send cancelled from inside the delegate stops, posts didSendChanges, and keeps its changes")
    func cancelMidSend() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(["a": "1"])
        phone.delegate.onEvent.withLock { hook in
            hook = { event, engine in
                // Returns at once from here: it cannot wait for the operation that waits for this handler.
                if case .sentDatabaseChanges = event { await engine.cancelOperations() }
            }
        }
        #expect(await errorCode { try await phone.engine.sendChanges() } == .operationCancelled)
        #expect(phone.delegate.events.suffix(3) == ["sentDatabaseChanges", "didSendChanges", "stateUpdate"])
        #expect(phone.engine.state.pendingRecordZoneChanges == [.saveRecord(NotesDelegate.recordID("a"))])
        #expect(phone.engine.misuses.isEmpty)
        #expect(try cloud.notes(of: "alice").isEmpty)
        phone.delegate.onEvent.withLock { $0 = nil }
        try await phone.engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }
}

import PrivateSyncEngineTesting
import Synchronization
import Testing

/// A delegate that awaits the engine from inside `handleEvent` waits for itself on a device; here it is told.
@Suite("Re-entrant calls")
struct ReentrancyTests {
    @Test("sendChanges awaited inside handleEvent throws reentrantCall, is recorded, and nothing hangs")
    func awaitedInsideHandleEvent() async throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        let caught = Mutex<[PSSyncEngineMisuse.Code]>([])
        phone.delegate.onEvent.withLock { hook in
            hook = { event, engine in
                guard case .willFetchChanges = event else { return }
                do {
                    try await engine.sendChanges()
                } catch let misuse as PSSyncEngineMisuse {
                    caught.withLock { $0.append(misuse.code) }
                } catch {}
            }
        }
        try await phone.engine.fetchChanges()
        #expect(caught.withLock { $0 } == [.reentrantCall])
        #expect(phone.engine.misuses.map(\.code) == [.reentrantCall])
        #expect(phone.delegate.events.contains("didFetchChanges"))
    }

    @Test("a send started in a task of its own from inside handleEvent is no misuse, and runs after the fetch")
    func detachedTaskIsFine() async throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        phone.write(["a": "1"])
        let started = Mutex<Task<Void, any Error>?>(nil)
        phone.delegate.onEvent.withLock { hook in
            hook = { event, engine in
                guard case .willFetchChanges = event, started.withLock({ $0 == nil }) else { return }
                let task = Task.detached { try await engine.sendChanges() }
                started.withLock { $0 = task }
            }
        }
        try await phone.engine.fetchChanges()
        try await #require(started.withLock { $0 }).value
        #expect(phone.engine.misuses.isEmpty)
        #expect(try phone.cloud.notes(of: "alice") == ["a": "1"])
    }
}

extension ReentrancyTests {
    @Test("an engine whose delegate nothing holds any more refuses to run, and says why")
    func releasedDelegate() async throws {
        let cloud = try SyncEngineTestCloud()
        let device = try cloud.device("phone", signedInTo: "alice")
        // Made in a function of its own, so that nothing but the engine's weak reference outlives it.
        func engineWithoutItsDelegate() -> PSSyncEngine {
            device.makeEngine(delegate: NotesDelegate(), stateSerialization: nil)
        }
        let engine = engineWithoutItsDelegate()
        let misuse = await #expect(throws: PSSyncEngineMisuse.self) { try await engine.fetchChanges() }
        #expect(misuse?.code == .delegateReleased)
        #expect(engine.misuses.map(\.code) == [.delegateReleased])
    }
}

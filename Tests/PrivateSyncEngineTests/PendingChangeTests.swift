import PrivateSyncEngineTesting
import Synchronization
import Testing

/// The pending lists' documented rules, and what leaves them after a send.
@Suite("Pending changes")
struct PendingChangeTests {
    let a = NotesDelegate.recordID("a")
    let b = NotesDelegate.recordID("b")

    @Test("a change added again keeps its place: save A, save B, save A gives save A, save B")
    func duplicatesCollapse() throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        phone.engine.state.add(pendingRecordZoneChanges: [.saveRecord(a), .saveRecord(b), .saveRecord(a)])
        #expect(phone.engine.state.pendingRecordZoneChanges == [.saveRecord(a), .saveRecord(b)])
    }

    @Test("a change of the other kind replaces it: save then delete gives delete, delete then save gives save")
    func otherKindReplaces() throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        let state = phone.engine.state
        state.add(pendingRecordZoneChanges: [.saveRecord(a), .saveRecord(b), .deleteRecord(a)])
        #expect(state.pendingRecordZoneChanges == [.saveRecord(b), .deleteRecord(a)])
        state.add(pendingRecordZoneChanges: [.saveRecord(a)])
        #expect(state.pendingRecordZoneChanges == [.saveRecord(b), .saveRecord(a)])
        state.remove(pendingRecordZoneChanges: [.deleteRecord(b)])
        #expect(state.pendingRecordZoneChanges == [.saveRecord(b), .saveRecord(a)])
        state.remove(pendingRecordZoneChanges: [.saveRecord(b)])
        #expect(state.pendingRecordZoneChanges == [.saveRecord(a)])
        let zone = PSRecordZone(zoneName: "Z")
        state.add(pendingDatabaseChanges: [.saveZone(zone), .deleteZone(zone.zoneID)])
        #expect(state.pendingDatabaseChanges == [.deleteZone(zone.zoneID)])
    }

    @Test("removing several changes at once removes every one of them, from both lists")
    func removingSeveralRemovesEach() throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        let state = phone.engine.state
        let c = NotesDelegate.recordID("c")
        state.add(pendingRecordZoneChanges: [.saveRecord(a), .saveRecord(b), .deleteRecord(c)])
        // The first change named is not pending: the others still go (the partition mirror's sweep found a state
        // that removed only the first change it could, seed 190 of `delegate-sweep 1000 mirror`).
        state.remove(pendingRecordZoneChanges: [.saveRecord(c), .saveRecord(a), .deleteRecord(c), .saveRecord(b)])
        #expect(state.pendingRecordZoneChanges.isEmpty)
        let zones = [PSRecordZone(zoneName: "Y"), PSRecordZone(zoneName: "Z")]
        state.add(pendingDatabaseChanges: zones.map { .saveZone($0) })
        state.remove(pendingDatabaseChanges: zones.map { .saveZone($0) })
        #expect(state.pendingDatabaseChanges.isEmpty)
    }

    @Test("a state takes 50,000 changes, one at a time, each telling its engine once")
    func manyChanges() throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        // Each add tells the engine through the state's owner; when that was a closure kept in a Mutex, each read
        // wrapped it once more, and some ten thousand adds on a call through it overflowed the stack.
        for index in 0..<50_000 {
            phone.engine.state.add(pendingRecordZoneChanges: [.saveRecord(NotesDelegate.recordID("r\(index)"))])
        }
        #expect(phone.engine.state.pendingRecordZoneChanges.count == 50_000)
    }

    @Test("what the server accepted leaves the lists")
    func successesLeave() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try await EngineHarness.sent(["a": "1", "b": "2"], on: cloud)
        try phone.engine.expectNothingPending()
        #expect(try cloud.notes(of: "alice") == ["a": "1", "b": "2"])
        phone.delegate.delete(["a"], engine: phone.engine)
        try await phone.engine.sendChanges()
        try phone.engine.expectNothingPending()
        #expect(try cloud.notes(of: "alice") == ["b": "2"])
    }

    /// The seven codes CloudKit's documentation says CKSyncEngine retries by itself.
    static let retryable: [CloudError.Code] = [
        .notAuthenticated, .accountTemporarilyUnavailable, .networkFailure, .networkUnavailable,
        .requestRateLimited, .serviceUnavailable, .zoneBusy,
    ]

    @Test("a change that failed with an error CloudKit retries stays pending", arguments: Self.retryable)
    func retryableStays(code: CloudError.Code) async throws {
        let (cloud, failing, engine, delegate) = try Self.failingDevice()
        delegate.write(["a": "1"], engine: engine)
        try await engine.sendChanges()
        delegate.write(["a": "2"], engine: engine)
        failing.failNextModify(with: [CloudError(code, "injected", retryAfter: 7)])
        let error = await #expect(throws: PSError.self) { try await engine.sendChanges() }
        #expect(error?.code == code)
        #expect(engine.state.pendingRecordZoneChanges == [.saveRecord(a)])
        let failed = delegate.fullEvents.compactMap { event -> [PSError.Code]? in
            guard case .sentRecordZoneChanges(let sent) = event else { return nil }
            return sent.failedRecordSaves.map(\.error.code)
        }
        #expect(failed.last == [code])
        try await engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "2"])
    }

    @Test(
        "a change that failed with any other error is dropped, for the delegate to add again",
        arguments: [
            CloudError.Code.quotaExceeded, .permissionFailure, .serverRejectedRequest, .internalError,
            .serverResponseLost, .invalidArguments,
        ])
    func otherFailuresDrop(code: CloudError.Code) async throws {
        let (cloud, failing, engine, delegate) = try Self.failingDevice()
        delegate.reAddsFailures.withLock { $0 = false }
        delegate.write(["a": "1"], engine: engine)
        try await engine.sendChanges()
        delegate.write(["a": "2"], engine: engine)
        failing.failNextModify(with: [CloudError(code, "injected")])
        let error = await #expect(throws: PSError.self) { try await engine.sendChanges() }
        #expect(error?.code == .partialFailure)
        #expect((error?.partialErrorsByItemID?[AnyHashable(a)] as? PSError)?.code == code)
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }

    @Test("a change added again while its save is in flight stays pending, and is sent next")
    func editDuringSendStays() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud)
        phone.write(["a": "1"])
        let a = self.a
        let delegate = phone.delegate
        phone.delegate.batchOverride.withLock { override in
            override = { _, engine in
                guard engine.state.pendingRecordZoneChanges.contains(.saveRecord(a)),
                    delegate.notes["a"] == "1"
                else { return nil }
                let record = PSRecord(recordType: "Note", recordID: a)
                record["text"] = delegate.notes["a"]
                // The user edits the note after the batch was read, before the server answers.
                delegate.write(["a": "2"], engine: engine)
                return PSSyncEngine.RecordZoneChangeBatch(recordsToSave: [record])
            }
        }
        try await phone.engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
        #expect(phone.engine.state.pendingRecordZoneChanges == [.saveRecord(a)])
        phone.delegate.batchOverride.withLock { $0 = nil }
        try await phone.engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "2"])
    }

    @Test("within one send a record goes once: a conflict's merge, added again, waits for the next send")
    func failedRecordWaitsForNextSend() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try EngineHarness(cloud: cloud, device: "phone")
        let laptop = try EngineHarness(cloud: cloud, device: "laptop")
        phone.write(["a": "phone"])
        try await phone.engine.sendChanges()
        laptop.write(["a": "laptop"])
        let attempts = Mutex(0)
        laptop.delegate.onEvent.withLock { hook in
            hook = { event, engine in
                guard case .sentRecordZoneChanges(let sent) = event, !sent.failedRecordSaves.isEmpty else { return }
                attempts.withLock { $0 += 1 }
                engine.state.add(pendingRecordZoneChanges: [.saveRecord(NotesDelegate.recordID("a"))])
            }
        }
        await #expect(throws: PSError.self) { try await laptop.engine.sendChanges() }
        #expect(attempts.withLock { $0 } == 1)
        #expect(laptop.engine.state.pendingRecordZoneChanges == [.saveRecord(a)])
        #expect(laptop.delegate.notes == ["a": "phone"])
    }

    /// A device whose modify requests a test can fail with any error.
    static func failingDevice() throws -> (SyncEngineTestCloud, FailingContainer, PSSyncEngine, NotesDelegate) {
        let cloud = try SyncEngineTestCloud()
        let session = AccountSession(account: try AccountID("alice"))
        let failing = FailingContainer(base: cloud.baseContainer(session: session))
        let delegate = NotesDelegate()
        var configuration = PSSyncEngine.Configuration(
            database: PSDatabase(container: failing), stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        configuration.scheduler = cloud.scheduler
        let engine = PSSyncEngine(configuration)
        return (cloud, failing, engine, delegate)
    }
}

import Foundation
import PrivateSyncEngineTesting
import Testing

/// The state the delegate persists: posted after changes, restoring pending lists and tokens, tagged with whose it
/// is, refused when it is not the fake engine's.
@Suite("State and its serialization")
struct StateSerializationTests {
    @Test("a restored state holds the pending changes and the tokens: nothing is fetched twice")
    func restoreHoldsPendingAndTokens() async throws {
        let cloud = try SyncEngineTestCloud()
        let (_, tablet) = try await EngineHarness.pair(on: cloud, synced: ["a": "1"])
        tablet.write(["b": "2"])
        // The change was added while the engine was idle: a state update carries it at the scheduler's next run.
        await cloud.scheduler.runDue()
        let (delegate, engine) = tablet.relaunched()
        #expect(engine.state.pendingRecordZoneChanges == [.saveRecord(NotesDelegate.recordID("b"))])
        try await engine.fetchChanges()
        #expect(!delegate.events.contains("fetchedRecordZoneChanges"))
        #expect(!delegate.events.contains { $0.hasPrefix("accountChange") })
        try await engine.sendChanges()
        #expect(try cloud.notes(of: "alice") == ["a": "1", "b": "2"])
    }

    @Test("a change added while idle and never followed by a state update is lost at a relaunch, as on a device")
    func unpersistedAddIsLost() async throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        try await phone.engine.fetchChanges()
        phone.engine.state.add(pendingRecordZoneChanges: [.saveRecord(NotesDelegate.recordID("x"))])
        let (_, engine) = phone.relaunched()
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
    }

    @Test("an encoded state says whose it is, and decodes to the same")
    func taggedRoundTrip() async throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud())
        phone.write(["a": "1"])
        try await phone.engine.fetchChanges()
        let state = try #require(phone.delegate.stateSerialization)
        let data = try JSONEncoder().encode(state)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == PSSyncEngine.State.Serialization.fakeEngineFormat)
        #expect(object["version"] as? Int == 1)
        #expect(try JSONDecoder().decode(PSSyncEngine.State.Serialization.self, from: data) == state)
    }

    @Test(
        "a serialization that is not the fake engine's, or is damaged, is refused with a reason",
        arguments: [
            (#"{"state": {}}"#, "no format tag"),
            (#"{"format": "something.else", "state": {}}"#, "something.else"),
            (#"{"format": "privatesync.fake-engine.state", "version": 2, "state": {}}"#, "version 2"),
            (#"{"format": "privatesync.fake-engine.state", "version": 1, "state": {"currentUser": 7}}"#, "currentUser"),
            (#"[1, 2]"#, "not a PrivateSync engine state"),
        ])
    func refusedSerialization(json: String, reason: String) {
        #expect {
            try JSONDecoder().decode(PSSyncEngine.State.Serialization.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("the real CKSyncEngine's state is decoded, but the fake engine refuses to run on it")
    func cloudKitStateRefusedByTheFake() async throws {
        let json = #"{"format": "apple.cksyncengine.state", "state": "e30="}"#
        let state = try JSONDecoder().decode(PSSyncEngine.State.Serialization.self, from: Data(json.utf8))
        let phone = try EngineHarness(cloud: SyncEngineTestCloud(), stateSerialization: state)
        let error = await #expect(throws: PSSyncEngineMisuse.self) { try await phone.engine.fetchChanges() }
        #expect(error?.code == .foreignStateSerialization)
        #expect(phone.delegate.events.isEmpty)
    }

    @Test("a token the server cannot read (a hand-edited state) makes the engine fetch from the start")
    func unreadableTokenRefetches() async throws {
        let (_, phone) = try await EngineHarness.pair(on: SyncEngineTestCloud(), synced: ["a": "1"])
        let data = try JSONEncoder().encode(try #require(phone.delegate.stateSerialization))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var state = try #require(object["state"] as? [String: Any])
        state["databaseToken"] = Data("garbage".utf8).base64EncodedString()
        var zoneTokens = try #require(state["zoneTokens"] as? [[String: Any]])
        zoneTokens[0]["token"] = Data("garbage".utf8).base64EncodedString()
        state["zoneTokens"] = zoneTokens
        object["state"] = state
        let edited = try JSONDecoder().decode(
            PSSyncEngine.State.Serialization.self, from: JSONSerialization.data(withJSONObject: object))
        let delegate = NotesDelegate(stateSerialization: edited)
        let engine = phone.device.makeEngine(delegate: delegate, stateSerialization: edited)
        try await engine.fetchChanges()
        #expect(delegate.notes == ["a": "1"])
    }
}

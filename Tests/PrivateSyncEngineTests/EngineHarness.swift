import Foundation
import PrivateSyncEngineTesting
import Synchronization

/// One device's engine and notes delegate over a test cloud: what most of the engine's tests start from.
struct EngineHarness {
    let cloud: SyncEngineTestCloud
    let device: TestDevice
    let delegate: NotesDelegate
    let engine: PSSyncEngine

    init(
        cloud: SyncEngineTestCloud, device name: String = "phone", account: String? = "alice",
        automaticallySync: Bool = false, stateSerialization: PSSyncEngine.State.Serialization? = nil
    ) throws {
        self.cloud = cloud
        device = try cloud.device(name, signedInTo: account)
        delegate = NotesDelegate(stateSerialization: stateSerialization)
        engine = device.makeEngine(
            delegate: delegate, stateSerialization: stateSerialization, automaticallySync: automaticallySync)
    }

    /// The same device relaunched: a new delegate and engine from what the delegate last persisted.
    func relaunched(automaticallySync: Bool = false) -> (NotesDelegate, PSSyncEngine) {
        let state = delegate.stateSerialization
        let delegate = NotesDelegate(stateSerialization: state)
        delegate.contents.withLock { $0.notes = self.delegate.notes }
        return (
            delegate,
            device.makeEngine(delegate: delegate, stateSerialization: state, automaticallySync: automaticallySync)
        )
    }

    func write(_ notes: [String: String]) { delegate.write(notes, engine: engine) }
}

extension SyncEngineTestCloud {
    /// The texts of the notes in an account's database, by name.
    func notes(of account: String) throws -> [String: String] {
        var notes: [String: String] = [:]
        for record in try records(of: account) where record.recordType == "Note" {
            notes[record.recordID.recordName] = record["text"] as? String
        }
        return notes
    }
}

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

    /// A phone and a tablet of alice on one cloud; with `notes`, the phone has written and sent them and the
    /// tablet has fetched them.
    /// Devices on alice that sync by themselves, made in order, after the launch fetches they schedule ran.
    static func syncingByThemselves(
        _ devices: String..., on cloud: SyncEngineTestCloud
    ) async throws -> [EngineHarness] {
        let made = try devices.map { try EngineHarness(cloud: cloud, device: $0, automaticallySync: true) }
        await cloud.scheduler.runUntilIdle()
        return made
    }

    /// A phone on alice that wrote `notes` and sent them.
    static func sent(_ notes: [String: String], on cloud: SyncEngineTestCloud) async throws -> EngineHarness {
        let phone = try EngineHarness(cloud: cloud)
        phone.write(notes)
        try await phone.engine.sendChanges()
        return phone
    }

    static func pair(
        on cloud: SyncEngineTestCloud, synced notes: [String: String] = [:]
    ) async throws -> (phone: EngineHarness, tablet: EngineHarness) {
        let phone = try EngineHarness(cloud: cloud, device: "phone")
        let tablet = try EngineHarness(cloud: cloud, device: "tablet")
        if !notes.isEmpty {
            phone.write(notes)
            try await phone.engine.sendChanges()
            try await tablet.engine.fetchChanges()
        }
        return (phone, tablet)
    }
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

/// The code of the `PSError` an operation throws, or `nil` when it throws none (or another error).
func errorCode(_ operation: () async throws -> Void) async -> PSError.Code? {
    do {
        try await operation()
        return nil
    } catch {
        return (error as? PSError)?.code
    }
}

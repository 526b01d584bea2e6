import Foundation
import PrivateSyncEngineTesting
import Synchronization

/// A small, correct delegate for the engine's tests: notes (a name and a text) in the zone `Notes`, every event
/// recorded by name, the last state kept as an app persists it.
///
/// Conflicts go to the server's version; a note deleted on the server is deleted here; a sign-in keeps the notes
/// and queues them all (the engine forgot what was pending), as Apple's sample does; a sign-out, a switch of account
/// or a zone deletion forgets every note. Tests change its behaviour through the hooks (`batchOverride`, `onEvent`).
final class NotesDelegate: PSSyncEngineDelegate {
    struct Contents {
        var notes: [String: String] = [:]
        /// The last version of each note the server returned: its change tag goes with the next save.
        var serverRecords: [String: PSRecord] = [:]
        var events: [String] = []
        var fullEvents: [PSSyncEngine.Event] = []
        var stateSerialization: PSSyncEngine.State.Serialization?
        var handling = false
        var overlapped = false
    }

    static let zoneID = PSRecordZone.ID(zoneName: "Notes")
    let contents = Mutex(Contents())
    /// Called with each event after it was recorded, inside `handleEvent`.
    let onEvent = Mutex<(@Sendable (PSSyncEngine.Event, PSSyncEngine) async -> Void)?>(nil)
    /// Replaces the batch the delegate would build.
    let batchOverride = Mutex<
        (@Sendable (PSSyncEngine.SendChangesContext, PSSyncEngine) async -> PSSyncEngine.RecordZoneChangeBatch?)?
    >(nil)
    /// Whether it adds again what failed with an error the engine does not retry (on by default, as a correct
    /// delegate does).
    let reAddsFailures = Mutex(true)
    /// Whether the batches it builds are atomic by zone.
    let atomicBatches = Mutex(false)
    /// Answers `nextFetchChangesOptions` instead of the default.
    let fetchOptionsOverride = Mutex<
        (@Sendable (PSSyncEngine.FetchChangesContext) -> PSSyncEngine.FetchChangesOptions)?
    >(nil)
    /// How many times `nextFetchChangesOptions` was asked.
    let fetchOptionsAsked = Mutex(0)

    init(stateSerialization: PSSyncEngine.State.Serialization? = nil) {
        contents.withLock { $0.stateSerialization = stateSerialization }
    }

    var notes: [String: String] { contents.withLock { $0.notes } }
    var events: [String] { contents.withLock { $0.events } }
    var fullEvents: [PSSyncEngine.Event] { contents.withLock { $0.fullEvents } }
    var stateSerialization: PSSyncEngine.State.Serialization? { contents.withLock { $0.stateSerialization } }
    var overlapped: Bool { contents.withLock { $0.overlapped } }

    func clearEvents() {
        contents.withLock {
            $0.events = []
            $0.fullEvents = []
        }
    }

    static func recordID(_ name: String) -> PSRecord.ID { PSRecord.ID(recordName: name, zoneID: zoneID) }

    /// Writes notes locally and queues their saves (and the zone's, the first time).
    func write(_ notes: [String: String], engine: PSSyncEngine) {
        contents.withLock { $0.notes.merge(notes) { $1 } }
        engine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: Self.zoneID))])
        engine.state.add(pendingRecordZoneChanges: notes.keys.sorted().map { .saveRecord(Self.recordID($0)) })
    }

    func delete(_ names: [String], engine: PSSyncEngine) {
        contents.withLock { contents in for name in names { contents.notes[name] = nil } }
        engine.state.add(pendingRecordZoneChanges: names.map { .deleteRecord(Self.recordID($0)) })
    }

    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        contents.withLock { contents in
            if contents.handling { contents.overlapped = true }
            contents.handling = true
            contents.events.append(Self.name(of: event))
            contents.fullEvents.append(event)
        }
        // A suspension inside the handler: the engine must wait for it before the next event, and before returning.
        await Task.yield()
        switch event {
        case .stateUpdate(let update):
            contents.withLock { $0.stateSerialization = update.stateSerialization }
        case .accountChange(let change):
            contents.withLock { $0.serverRecords = [:] }
            if case .signIn = change.changeType {
                let names = contents.withLock { $0.notes.keys.sorted() }
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: Self.zoneID))])
                syncEngine.state.add(pendingRecordZoneChanges: names.map { .saveRecord(Self.recordID($0)) })
            } else {
                contents.withLock { $0.notes = [:] }
            }
        case .fetchedDatabaseChanges(let changes):
            if changes.deletions.contains(where: { $0.zoneID == Self.zoneID }) {
                contents.withLock {
                    $0.notes = [:]
                    $0.serverRecords = [:]
                }
            }
        case .fetchedRecordZoneChanges(let changes):
            contents.withLock { contents in
                for modification in changes.modifications {
                    let name = modification.record.recordID.recordName
                    contents.notes[name] = modification.record["text"] as? String
                    contents.serverRecords[name] = modification.record
                }
                for deletion in changes.deletions {
                    contents.notes[deletion.recordID.recordName] = nil
                    contents.serverRecords[deletion.recordID.recordName] = nil
                }
            }
        case .sentRecordZoneChanges(let sent):
            let (saves, deletes, zones) = contents.withLock { contents in
                for saved in sent.savedRecords { contents.serverRecords[saved.recordID.recordName] = saved }
                for id in sent.deletedRecordIDs { contents.serverRecords[id.recordName] = nil }
                return Self.absorbFailures(sent, into: &contents)
            }
            // What a correct delegate does with a failure the engine dropped: send it again when it can succeed.
            if reAddsFailures.withLock({ $0 }) {
                syncEngine.state.add(pendingDatabaseChanges: zones.map { .saveZone(PSRecordZone(zoneID: $0)) })
                syncEngine.state.add(
                    pendingRecordZoneChanges: saves.map { .saveRecord($0) } + deletes.map { .deleteRecord($0) })
            }
        default:
            break
        }
        if let hook = onEvent.withLock({ $0 }) { await hook(event, syncEngine) }
        contents.withLock { $0.handling = false }
    }

    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        if let override = batchOverride.withLock({ $0 }) { return await override(context, syncEngine) }
        let scope = context.options.scope
        let pending = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let (notes, known) = contents.withLock { ($0.notes, $0.serverRecords) }
        var batch = await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { id in
            guard let text = notes[id.recordName] else { return nil }
            let record = known[id.recordName]?.copy() as? PSRecord ?? PSRecord(recordType: "Note", recordID: id)
            record["text"] = text
            return record
        }
        batch?.atomicByZone = atomicBatches.withLock { $0 }
        return batch
    }

    func nextFetchChangesOptions(
        _ context: PSSyncEngine.FetchChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.FetchChangesOptions {
        fetchOptionsAsked.withLock { $0 += 1 }
        return fetchOptionsOverride.withLock { $0 }?(context) ?? context.options
    }

    /// Takes in a send's failures: a conflict's server version wins; a zone gone is created again, with the record
    /// (its server version forgotten); a record deleted on the server is sent again as new; a zone the user deleted in
    /// Settings takes its notes with it; a record too large is given up; anything else is sent again.
    ///
    /// - Returns: The saves, deletes and zones to add again.
    static func absorbFailures(
        _ sent: PSSyncEngine.Event.SentRecordZoneChanges, into contents: inout Contents
    ) -> ([PSRecord.ID], [PSRecord.ID], [PSRecordZone.ID]) {
        var saves: [PSRecord.ID] = []
        var zones: [PSRecordZone.ID] = []
        for failure in sent.failedRecordSaves {
            let id = failure.record.recordID
            switch failure.error.code {
            case .serverRecordChanged:
                contents.notes[id.recordName] = failure.error.serverRecord?["text"] as? String
                contents.serverRecords[id.recordName] = failure.error.serverRecord
            case .zoneNotFound:
                contents.serverRecords[id.recordName] = nil
                zones.append(id.zoneID)
                saves.append(id)
            case .unknownItem:
                contents.serverRecords[id.recordName] = nil
                saves.append(id)
            case .userDeletedZone:
                contents.notes[id.recordName] = nil
                contents.serverRecords[id.recordName] = nil
            case .limitExceeded:
                break
            default:
                if !PSSyncEngineRetries.codes.contains(failure.error.code) { saves.append(id) }
            }
        }
        let deletes = sent.failedRecordDeletes.compactMap { id, error in
            error.code == .unknownItem || error.code == .userDeletedZone || error.code == .zoneNotFound
                || PSSyncEngineRetries.codes.contains(error.code) ? nil : id
        }
        return (saves, deletes, zones)
    }

    /// The event's case name, with the zone for the zone events.
    static func name(of event: PSSyncEngine.Event) -> String {
        switch event {
        case .stateUpdate: "stateUpdate"
        case .accountChange(let change):
            switch change.changeType {
            case .signIn: "accountChange(signIn)"
            case .signOut: "accountChange(signOut)"
            case .switchAccounts: "accountChange(switchAccounts)"
            }
        case .fetchedDatabaseChanges: "fetchedDatabaseChanges"
        case .fetchedRecordZoneChanges: "fetchedRecordZoneChanges"
        case .sentDatabaseChanges: "sentDatabaseChanges"
        case .sentRecordZoneChanges: "sentRecordZoneChanges"
        case .willFetchChanges: "willFetchChanges"
        case .willFetchRecordZoneChanges(let zone): "willFetchRecordZoneChanges(\(zone.zoneID.zoneName))"
        case .didFetchRecordZoneChanges(let zone): "didFetchRecordZoneChanges(\(zone.zoneID.zoneName))"
        case .didFetchChanges: "didFetchChanges"
        case .willSendChanges: "willSendChanges"
        case .didSendChanges: "didSendChanges"
        }
    }
}

/// The codes CloudKit documents CKSyncEngine retries by itself (and operationCancelled, which the engine keeps too).
enum PSSyncEngineRetries {
    static let codes: Set<PSError.Code> = [
        .notAuthenticated, .accountTemporarilyUnavailable, .networkFailure, .networkUnavailable,
        .requestRateLimited, .serviceUnavailable, .zoneBusy, .operationCancelled,
    ]
}

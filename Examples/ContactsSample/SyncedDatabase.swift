public import PrivateSyncEngine

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The sample app's data and its sync: a `PSSyncEngineDelegate` written the way Apple's CKSyncEngine sample writes
/// its `SyncedDatabase` (an actor, contacts in a JSON file, the engine made lazily), over PrivateSync's engine.
///
/// What differs from Apple's, on purpose: the database is handed in (a device of a test cloud, not
/// `CKContainer(identifier:)`), the engine's scheduler can be shared, and a failed write of the data file is kept
/// in ``persistenceErrors`` instead of being dropped with `try?`.
public final actor SyncedDatabase: PSSyncEngineDelegate {
    /// The database the engine syncs with.
    public let database: PSDatabase
    /// Whether the engine syncs by itself (false in tests, as in Apple's).
    public let automaticallySync: Bool
    /// Where automatic syncs are scheduled, if the engine syncs by itself.
    public let scheduler: PSSyncScheduler?
    /// The file the data lives in.
    public let dataURL: URL
    /// The contacts and the engine's last state.
    public private(set) var appData: AppData
    /// Every failed write of the data file, in order.
    public private(set) var persistenceErrors: [String] = []
    private var engine: PSSyncEngine?

    /// Opens the data file (a missing or unreadable one starts empty, as in Apple's sample).
    ///
    /// - Parameters:
    ///   - database: The database to sync with.
    ///   - dataURL: The data file.
    ///   - automaticallySync: Whether the engine syncs by itself; `true` by default.
    ///   - scheduler: The scheduler automatic syncs run on, or `nil` for the engine's own.
    public init(database: PSDatabase, dataURL: URL, automaticallySync: Bool = true, scheduler: PSSyncScheduler? = nil) {
        self.database = database
        self.dataURL = dataURL
        self.automaticallySync = automaticallySync
        self.scheduler = scheduler
        if let blob = try? Data(contentsOf: dataURL), let data = try? JSONDecoder().decode(AppData.self, from: blob) {
            appData = data
        } else {
            appData = AppData()
        }
    }

    /// The engine, made at first use from the last state.
    public var syncEngine: PSSyncEngine {
        if let engine { return engine }
        return initializeSyncEngine()
    }

    @discardableResult
    private func initializeSyncEngine() -> PSSyncEngine {
        var configuration = PSSyncEngine.Configuration(
            database: database, stateSerialization: appData.stateSerialization, delegate: self)
        configuration.automaticallySync = automaticallySync
        configuration.scheduler = scheduler
        let engine = PSSyncEngine(configuration)
        self.engine = engine
        return engine
    }

    // MARK: PSSyncEngineDelegate

    /// Handles one event of the engine.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - syncEngine: The engine.
    public func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        switch event {
        case .stateUpdate(let event):
            appData.stateSerialization = event.stateSerialization
            persistLocalData()
        case .accountChange(let event):
            handleAccountChange(event)
        case .fetchedDatabaseChanges(let event):
            handleFetchedDatabaseChanges(event)
        case .fetchedRecordZoneChanges(let event):
            handleFetchedRecordZoneChanges(event)
        case .sentRecordZoneChanges(let event):
            handleSentRecordZoneChanges(event, syncEngine: syncEngine)
        case .sentDatabaseChanges, .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges,
            .didFetchChanges, .willSendChanges, .didSendChanges:
            break
        }
    }

    /// The next batch: the pending changes in the send's scope, each save filled from the contact it names.
    ///
    /// - Parameters:
    ///   - context: Why and how the send runs.
    ///   - syncEngine: The engine.
    /// - Returns: The batch, or `nil` when nothing is left.
    public func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let contacts = appData.contacts
        return await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            if let contact = contacts[recordID.recordName] {
                let record = contact.lastKnownRecord ?? PSRecord(recordType: Contact.recordType, recordID: recordID)
                contact.populateRecord(record)
                return record
            }
            // A change of a contact deleted since: nothing to send.
            syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(recordID)])
            return nil
        }
    }

    // MARK: Events

    private func handleFetchedRecordZoneChanges(_ event: PSSyncEngine.Event.FetchedRecordZoneChanges) {
        for modification in event.modifications {
            let record = modification.record
            let id = record.recordID.recordName
            var contact = appData.contacts[id] ?? Contact(id: id, name: "", userModificationDate: .distantPast)
            contact.mergeFromServerRecord(record)
            contact.setLastKnownRecordIfNewer(record)
            appData.contacts[id] = contact
        }
        for deletion in event.deletions {
            appData.contacts[deletion.recordID.recordName] = nil
        }
        if !event.modifications.isEmpty || !event.deletions.isEmpty { persistLocalData() }
    }

    private func handleFetchedDatabaseChanges(_ event: PSSyncEngine.Event.FetchedDatabaseChanges) {
        var needsToSave = false
        for deletion in event.deletions where deletion.zoneID.zoneName == Contact.zoneName {
            appData.contacts = [:]
            needsToSave = true
        }
        if needsToSave { persistLocalData() }
    }

    private func handleSentRecordZoneChanges(
        _ event: PSSyncEngine.Event.SentRecordZoneChanges, syncEngine: PSSyncEngine
    ) {
        var newPendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange] = []
        var newPendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange] = []
        for savedRecord in event.savedRecords {
            let id = savedRecord.recordID.recordName
            if var contact = appData.contacts[id] {
                contact.setLastKnownRecordIfNewer(savedRecord)
                appData.contacts[id] = contact
            }
        }
        for failedRecordSave in event.failedRecordSaves {
            let failedRecord = failedRecordSave.record
            let contactID = failedRecord.recordID.recordName
            var shouldClearServerRecord = false
            switch failedRecordSave.error.code {
            case .serverRecordChanged:
                guard let serverRecord = failedRecordSave.error.serverRecord,
                    var contact = appData.contacts[contactID]
                else { continue }
                contact.mergeFromServerRecord(serverRecord)
                contact.setLastKnownRecordIfNewer(serverRecord)
                appData.contacts[contactID] = contact
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
            case .zoneNotFound:
                // The zone is gone: create it again, send the record again, forget its stale system fields.
                newPendingDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: failedRecord.recordID.zoneID)))
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                shouldClearServerRecord = true
            case .unknownItem:
                // Deleted on the server, kept here: upload it again, as a new record.
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                shouldClearServerRecord = true
            case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated,
                .operationCancelled:
                // The engine retries these by itself.
                break
            default:
                break
            }
            if shouldClearServerRecord, var contact = appData.contacts[contactID] {
                contact.lastKnownRecord = nil
                appData.contacts[contactID] = contact
            }
        }
        syncEngine.state.add(pendingDatabaseChanges: newPendingDatabaseChanges)
        syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
        persistLocalData()
    }

    private func handleAccountChange(_ event: PSSyncEngine.Event.AccountChange) {
        switch event.changeType {
        case .signIn:
            // Keep what is here and upload it to the account just signed into.
            syncEngine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneName: Contact.zoneName))])
            syncEngine.state.add(pendingRecordZoneChanges: appData.contacts.values.map { .saveRecord($0.recordID) })
        case .switchAccounts, .signOut:
            deleteLocalData()
        }
    }

    // MARK: Data

    /// Saves contacts locally and queues their upload.
    ///
    /// - Parameter contacts: The contacts.
    public func saveContacts(_ contacts: [Contact]) {
        for var contact in contacts {
            if let existing = appData.contacts[contact.id]?.lastKnownRecord {
                contact.setLastKnownRecordIfNewer(existing)
            }
            appData.contacts[contact.id] = contact
        }
        persistLocalData()
        syncEngine.state.add(pendingRecordZoneChanges: contacts.map { .saveRecord($0.recordID) })
    }

    /// Deletes contacts locally and queues their deletion.
    ///
    /// - Parameter ids: The contacts' identifiers.
    public func deleteContacts(_ ids: [Contact.ID]) {
        let deleted = ids.compactMap { appData.contacts[$0] }
        for id in ids { appData.contacts[id] = nil }
        persistLocalData()
        syncEngine.state.add(pendingRecordZoneChanges: deleted.map { .deleteRecord($0.recordID) })
    }

    /// Deletes every local contact and the engine's state, and starts a new engine from nothing.
    public func deleteLocalData() {
        appData = AppData()
        persistLocalData()
        initializeSyncEngine()
    }

    /// Deletes the contacts' zone on the server, through the engine.
    ///
    /// - Throws: What the engine's send throws.
    public func deleteServerData() async throws {
        syncEngine.state.add(pendingDatabaseChanges: [.deleteZone(PSRecordZone.ID(zoneName: Contact.zoneName))])
        try await syncEngine.sendChanges()
    }

    private func persistLocalData() {
        do {
            try JSONEncoder().encode(appData).write(to: dataURL, options: .atomic)
        } catch {
            persistenceErrors.append("\(dataURL.path): \(error)")
        }
    }
}

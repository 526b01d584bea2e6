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
///
/// What differs because the delegate sweep (`DelegateSweep`, docs/cksyncengine.md) found Apple's version losing the
/// user's data, each with the seed that showed it:
/// - the changes the server has not confirmed are kept with the contacts (``AppData/unsentChanges``) and given to
///   the engine again at launch and after each fetch: Apple's keeps them only in the engine's state, so a crash
///   between an edit and the next `stateUpdate`, or a non-retryable error its `default:` drops, loses the edit;
/// - a zone deleted with `encryptedDataReset` has its contacts uploaded again (Apple's deletes them, as for any
///   deletion), and a zone deleted by the user (`purged`) or an app (`deleted`) deletes them here;
/// - a save that failed with `unknownItem` goes up again only when it carries an edit made here: Apple's uploads
///   whatever it holds, so a copy merged in from a conflict came back after the device that wrote it deleted it;
/// - a save refused for good (`serverRejectedRequest`, a record over the size limit) is dropped, not retried;
/// - the events of an engine the app replaced are ignored: Apple's stores a late `stateUpdate` of the engine it
///   dropped at a sign-out, so the next launch starts from the account left;
/// - the contacts remember their account (``AppData/accountRecordName``): Apple's uploads what it holds at any
///   `signIn`, so a contact made after a switch to one account, before the new engine ran, went up to the account
///   signed into next;
/// - a conflict (`serverRecordChanged`) sends the edit made here again only while it is still the later one;
/// - after the user deleted the zone in Settings, a device that has not heard yet creates it again for nothing it
///   held then: the zone is saved only with something to put in it (never queued at a sign-in with no contact, nor
///   with every unsent change), and a save refused with `userDeletedZone` is news of the deletion: what may have
///   reached the server (any contact but those made here whose save never landed: ``AppData/neverSent``)
///   goes, what never did goes up into the zone created again, and the deletion's report in a later fetch is not
///   taken as a second one.
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
    private let engineDelegate: (any PSSyncEngineDelegate)?

    /// Opens the data file (a missing or unreadable one starts empty, as in Apple's sample).
    ///
    /// - Parameters:
    ///   - database: The database to sync with.
    ///   - dataURL: The data file.
    ///   - automaticallySync: Whether the engine syncs by itself; `true` by default.
    ///   - scheduler: The scheduler automatic syncs run on, or `nil` for the engine's own.
    ///   - engineDelegate: The engine's delegate when an object fronts this one (a logging or testing layer that
    ///     passes the events on); `nil`, the default, makes this object the delegate. The engine holds its delegate
    ///     weakly: keep it alive.
    public init(
        database: PSDatabase, dataURL: URL, automaticallySync: Bool = true, scheduler: PSSyncScheduler? = nil,
        engineDelegate: (any PSSyncEngineDelegate)? = nil
    ) {
        self.database = database
        self.dataURL = dataURL
        self.automaticallySync = automaticallySync
        self.scheduler = scheduler
        self.engineDelegate = engineDelegate
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
            database: database, stateSerialization: appData.stateSerialization, delegate: engineDelegate ?? self)
        configuration.automaticallySync = automaticallySync
        configuration.scheduler = scheduler
        let engine = PSSyncEngine(configuration)
        self.engine = engine
        // What the last state may not hold: changes made after it, or dropped by the engine on an error.
        addUnsentChanges(to: engine)
        return engine
    }

    // MARK: PSSyncEngineDelegate

    /// Handles one event of the engine.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - syncEngine: The engine.
    public func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        // An engine this app replaced (after a sign-out or a switch) may still finish what it was doing: its state
        // and changes belong to the account left, and must not overwrite the new engine's.
        guard syncEngine === engine else { return }
        switch event {
        case .stateUpdate(let event):
            appData.stateSerialization = event.stateSerialization
            persistLocalData()
        case .accountChange(let event):
            handleAccountChange(event)
        case .fetchedDatabaseChanges(let event):
            handleFetchedDatabaseChanges(event, syncEngine: syncEngine)
        case .fetchedRecordZoneChanges(let event):
            handleFetchedRecordZoneChanges(event)
        case .sentRecordZoneChanges(let event):
            handleSentRecordZoneChanges(event, syncEngine: syncEngine)
        case .didFetchChanges:
            // A change an error took out of the engine (quota, a lost answer) goes again, now that the fetch has
            // brought any deletion of the zone: the zone is created again only for what is still unsent after it.
            addUnsentChanges(to: syncEngine)
        case .sentDatabaseChanges(let event):
            // The zone created again: a later `userDeletedZone` is news again.
            if appData.zonePurgedByUser, event.savedZones.contains(where: { $0.zoneID.zoneName == Contact.zoneName }) {
                appData.zonePurgedByUser = false
                appData.zoneCreatedSinceHeard = appData.purgeHeardFromRefusal
                persistLocalData()
            }
        case .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges,
            .willSendChanges, .didSendChanges:
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
        let batch = await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            if let contact = contacts[recordID.recordName] {
                let record = contact.lastKnownRecord ?? PSRecord(recordType: Contact.recordType, recordID: recordID)
                contact.populateRecord(record)
                return record
            }
            // A change of a contact deleted since: nothing to send.
            syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(recordID)])
            return nil
        }
        // Written down before the request leaves: if its answer is lost, the contact may be on the server.
        let sending = Set(batch?.recordsToSave.map(\.recordID.recordName) ?? [])
        let first = sending.intersection(appData.neverSent)
        if !first.isEmpty {
            appData.neverSent.subtract(first)
            appData.firstSendUnanswered.formUnion(first)
            persistLocalData()
        }
        return batch
    }

    /// The codes of a failed save that do not say whether the server applied it: CloudKit's `serverResponseLost`
    /// is "applied, but the answer was lost"; an internal error says nothing.
    static let failuresThatMayHaveLanded: Set<PSError.Code> = [.serverResponseLost, .internalError]

    // MARK: Events

    private func handleFetchedRecordZoneChanges(_ event: PSSyncEngine.Event.FetchedRecordZoneChanges) {
        for modification in event.modifications {
            let record = modification.record
            let id = record.recordID.recordName
            var contact = appData.contacts[id] ?? Contact(id: id, name: "", userModificationDate: .distantPast)
            contact.mergeFromServerRecord(record)
            contact.setLastKnownRecordIfNewer(record)
            appData.contacts[id] = contact
            // A newer edit from elsewhere replaced the unsent one: nothing of ours is left to send.
            if case .save(let date)? = appData.unsentChanges[id], date != contact.userModificationDate {
                appData.unsentChanges[id] = nil
            }
        }
        let fetched = event.modifications.map(\.record.recordID.recordName)
        appData.neverSent.subtract(fetched)
        appData.firstSendUnanswered.subtract(fetched)
        for deletion in event.deletions {
            appData.contacts[deletion.recordID.recordName] = nil
            appData.unsentChanges[deletion.recordID.recordName] = nil
        }
        if !event.modifications.isEmpty || !event.deletions.isEmpty { persistLocalData() }
    }

    private func handleFetchedDatabaseChanges(
        _ event: PSSyncEngine.Event.FetchedDatabaseChanges, syncEngine: PSSyncEngine
    ) {
        var needsToSave = false
        for deletion in event.deletions where deletion.zoneID.zoneName == Contact.zoneName {
            let createdAgain = event.modifications.contains { $0.zoneID == deletion.zoneID }
            switch deletion.reason {
            case .purged where createdAgain && appData.zoneCreatedSinceHeard:
                // The deletion this device heard of from a refused save, and its own creation of the zone after:
                // old news, and what is here was made since.
                appData.zoneCreatedSinceHeard = false
                appData.purgeHeardFromRefusal = false
                needsToSave = true
                continue
            case .purged:
                // Deleted by the user in Settings: what may have been on the server goes, and is not uploaded
                // again; a contact that never reached it stays, for the zone to come. (Heard a second time, from a
                // save refused with `userDeletedZone` first, the report finds nothing more to delete; and what a
                // stale report takes from a zone created again since comes back in this fetch of that zone.)
                forgetWhatMayBeOnTheServer(syncEngine: syncEngine)
            case .deleted:
                // Deleted by an app: the contacts go.
                appData.contacts = [:]
                appData.unsentChanges = [:]
                appData.neverSent = []
                appData.firstSendUnanswered = []
                appData.zonePurgedByUser = false
                appData.zoneCreatedSinceHeard = false
                appData.purgeHeardFromRefusal = false
            case .encryptedDataReset:
                // The server lost them; this device still has them: upload them all again, as new records, into
                // the zone created again.
                for (id, var contact) in appData.contacts {
                    contact.lastKnownRecord = nil
                    appData.contacts[id] = contact
                    appData.unsentChanges[id] = .save(contact.userModificationDate)
                }
                appData.zonePurgedByUser = false
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneID: deletion.zoneID))])
            }
            needsToSave = true
        }
        // A zone changed after its deletion was created again (by this device or another): it is there now.
        let deleted = Set(event.deletions.map(\.zoneID))
        for modification in event.modifications
        where modification.zoneID.zoneName == Contact.zoneName && !deleted.contains(modification.zoneID)
            && appData.zonePurgedByUser
        {
            appData.zonePurgedByUser = false
            needsToSave = true
        }
        if appData.zoneCreatedSinceHeard,
            event.modifications.contains(where: {
                $0.zoneID.zoneName == Contact.zoneName && !deleted.contains($0.zoneID)
            })
        {
            // The list is past the deletion (it lists changes in order): its report is not to come.
            appData.zoneCreatedSinceHeard = false
            appData.purgeHeardFromRefusal = false
            needsToSave = true
        }
        if needsToSave { persistLocalData() }
    }

    private func handleSentRecordZoneChanges(
        _ event: PSSyncEngine.Event.SentRecordZoneChanges, syncEngine: PSSyncEngine
    ) {
        var newPendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange] = []
        var newPendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange] = []
        if !event.savedRecords.isEmpty && appData.zonePurgedByUser {
            // A save landed: the zone is there again, and a later deletion is news.
            appData.zonePurgedByUser = false
        }
        // What may have been on the server before this answer: a contact with system fields, or one a save of
        // which went unanswered.
        appData.firstSendUnanswered.subtract(event.savedRecords.map(\.recordID.recordName))
        for failed in event.failedRecordSaves {
            let id = failed.record.recordID.recordName
            // A lost response follows a save the server applied; every other failure says it did not land.
            if appData.firstSendUnanswered.remove(id) != nil,
                !Self.failuresThatMayHaveLanded.contains(failed.error.code)
            {
                appData.neverSent.insert(id)
            }
        }
        for savedRecord in event.savedRecords {
            let id = savedRecord.recordID.recordName
            if var contact = appData.contacts[id] {
                contact.setLastKnownRecordIfNewer(savedRecord)
                appData.contacts[id] = contact
                let saved = savedRecord.encryptedValues[Contact.userModificationDateKey] as? Date
                if appData.unsentChanges[id] == .save(contact.userModificationDate),
                    saved == contact.userModificationDate
                {
                    appData.unsentChanges[id] = nil
                }
            }
        }
        for deletedID in event.deletedRecordIDs where appData.unsentChanges[deletedID.recordName] == .delete {
            appData.unsentChanges[deletedID.recordName] = nil
        }
        for (deletedID, error) in event.failedRecordDeletes where error.code == .unknownItem {
            // Already gone: the delete is done.
            if appData.unsentChanges[deletedID.recordName] == .delete {
                appData.unsentChanges[deletedID.recordName] = nil
            }
        }
        var heardOfPurge = false
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
                if hasUnsentEdit(contact) {
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                } else {
                    // The server's edit was the later one and is now ours: nothing of ours is left to send.
                    appData.unsentChanges[contactID] = nil
                }
            case .zoneNotFound:
                // The zone is gone: create it again, send the record again, forget its stale system fields.
                newPendingDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: failedRecord.recordID.zoneID)))
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                shouldClearServerRecord = true
            case .userDeletedZone where appData.zonePurgedByUser:
                // The user deleted the zone, this device has dropped what it held then, and this is a later edit:
                // the zone may be created again for it.
                newPendingDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: failedRecord.recordID.zoneID)))
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                shouldClearServerRecord = true
            case .userDeletedZone:
                // The first news of it here (a device whose database token is past the deletion hears only this
                // way): what may have been on the server goes, as when a fetch brings the deletion; a contact that
                // never reached it (this one did not) was made for the zone to come, and creates it.
                heardOfPurge = true
                newPendingDatabaseChanges.append(.saveZone(PSRecordZone(zoneID: failedRecord.recordID.zoneID)))
                newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                shouldClearServerRecord = true
            case .unknownItem:
                if let contact = appData.contacts[contactID], hasUnsentEdit(contact) {
                    // Deleted on the server, edited here: upload the edit again, as a new record.
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                    shouldClearServerRecord = true
                } else {
                    // Deleted on the server, and nothing here is newer than what was deleted: the delete wins.
                    // (Apple's uploads it again, bringing back a copy another device saw and then deleted.)
                    appData.contacts[contactID] = nil
                    appData.unsentChanges[contactID] = nil
                }
            case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated,
                .operationCancelled:
                // The engine retries these by itself.
                break
            case .serverRejectedRequest, .limitExceeded:
                // Refused for good: sending it again would be refused again. A real app tells the user.
                appData.unsentChanges[contactID] = nil
            default:
                // Dropped by the engine (quota, a lost answer, a failed batch): still in `unsentChanges`, it goes
                // again after the next fetch.
                break
            }
            if shouldClearServerRecord, var contact = appData.contacts[contactID] {
                contact.lastKnownRecord = nil
                appData.contacts[contactID] = contact
            }
        }
        if heardOfPurge {
            // Before this answer: with system fields, or unanswered (this answer's saves did not land).
            let gone = forgetWhatMayBeOnTheServer(heardFromRefusal: true, syncEngine: syncEngine)
            newPendingRecordZoneChanges.removeAll { change in
                if case .saveRecord(let id) = change { gone.contains(id.recordName) } else { false }
            }
            if newPendingRecordZoneChanges.isEmpty { newPendingDatabaseChanges.removeAll() }
        }
        syncEngine.state.add(pendingDatabaseChanges: newPendingDatabaseChanges)
        syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
        persistLocalData()
    }

    private func handleAccountChange(_ event: PSSyncEngine.Event.AccountChange) {
        switch event.changeType {
        case .signIn(let currentUser):
            if let owner = appData.accountRecordName, owner != currentUser.recordName {
                // Contacts of another account, made after it was left and before this engine ran: never upload
                // them to this one.
                deleteLocalData()
                appData.accountRecordName = currentUser.recordName
                persistLocalData()
                return
            }
            appData.accountRecordName = currentUser.recordName
            // Keep what is here and upload it to the account just signed into.
            for contact in appData.contacts.values where appData.unsentChanges[contact.id] == nil {
                appData.unsentChanges[contact.id] = .save(contact.userModificationDate)
            }
            persistLocalData()
            // The zone's save only with contacts to put in it: queued for nothing, it would wait for the first
            // send and then create again a zone the user may have deleted in Settings since.
            guard !appData.contacts.isEmpty else { return }
            syncEngine.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneName: Contact.zoneName))])
            // In a fixed order: a dictionary's changes from process to process (Swift seeds its hashing at each
            // launch), and so would the batches, and a sweep's seed would not replay exactly (seed 72 of 300 sent
            // 5 or 6 faults' worth of requests, by the process).
            syncEngine.state.add(
                pendingRecordZoneChanges: appData.contacts.values.sorted { $0.id < $1.id }.map {
                    .saveRecord($0.recordID)
                })
        case .switchAccounts(_, let currentUser):
            deleteLocalData()
            appData.accountRecordName = currentUser.recordName
            persistLocalData()
        case .signOut:
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
            if appData.contacts[contact.id] == nil { appData.neverSent.insert(contact.id) }
            appData.contacts[contact.id] = contact
            appData.unsentChanges[contact.id] = .save(contact.userModificationDate)
        }
        persistLocalData()
        syncEngine.state.add(pendingRecordZoneChanges: contacts.map { .saveRecord($0.recordID) })
    }

    /// Deletes contacts locally and queues their deletion.
    ///
    /// - Parameter ids: The contacts' identifiers.
    public func deleteContacts(_ ids: [Contact.ID]) {
        let deleted = ids.compactMap { appData.contacts[$0] }
        for contact in deleted {
            appData.contacts[contact.id] = nil
            appData.unsentChanges[contact.id] = .delete
            appData.neverSent.remove(contact.id)
        }
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

    /// The contacts that may be on the server: all but those made here whose save never landed.
    private func mayBeOnServer() -> Set<Contact.ID> {
        Set(appData.contacts.keys).subtracting(appData.neverSent)
    }

    /// Deletes, here, the contacts that may have been on the server when the user deleted the zone in Settings,
    /// and lets the others (never uploaded) create the zone again.
    ///
    /// - Parameters:
    ///   - heardFromRefusal: Whether the news came from a refused save (the database's list reports it later).
    ///   - syncEngine: The engine, whose pending saves of those contacts go too.
    /// - Returns: The contacts deleted.
    @discardableResult
    private func forgetWhatMayBeOnTheServer(
        heardFromRefusal: Bool = false, syncEngine: PSSyncEngine
    ) -> Set<Contact.ID> {
        let gone = mayBeOnServer()
        for id in gone {
            appData.contacts[id] = nil
            appData.unsentChanges[id] = nil
        }
        appData.unsentChanges = appData.unsentChanges.filter { $0.value != .delete }
        appData.firstSendUnanswered = []
        appData.zonePurgedByUser = true
        appData.zoneCreatedSinceHeard = false
        appData.purgeHeardFromRefusal = heardFromRefusal
        let zoneID = PSRecordZone.ID(zoneName: Contact.zoneName)
        syncEngine.state.remove(
            pendingRecordZoneChanges: gone.map { .saveRecord(PSRecord.ID(recordName: $0, zoneID: zoneID)) })
        return gone
    }

    /// Whether the contact holds an edit made here that the server has not confirmed.
    private func hasUnsentEdit(_ contact: Contact) -> Bool {
        appData.unsentChanges[contact.id] == .save(contact.userModificationDate)
    }

    /// Gives the engine every unsent change again (adding a change it holds changes nothing).
    ///
    /// Not the zone's save: a zone that is gone is created again where a save fails for it (`zoneNotFound`, or
    /// `userDeletedZone` once this device has heard of the deletion), never on the guess that it may be gone, which
    /// would bring back, into a zone the user deleted, what this device held before it heard.
    private func addUnsentChanges(to engine: PSSyncEngine) {
        guard !appData.unsentChanges.isEmpty else { return }
        let zoneID = PSRecordZone.ID(zoneName: Contact.zoneName)
        let changes = appData.unsentChanges.keys.sorted().map { id -> PSSyncEngine.PendingRecordZoneChange in
            let recordID = PSRecord.ID(recordName: id, zoneID: zoneID)
            return appData.unsentChanges[id] == .delete ? .deleteRecord(recordID) : .saveRecord(recordID)
        }
        engine.state.add(pendingRecordZoneChanges: changes)
    }

    private func persistLocalData() {
        do {
            try JSONEncoder().encode(appData).write(to: dataURL, options: .atomic)
        } catch {
            persistenceErrors.append("\(dataURL.path): \(error)")
        }
    }
}

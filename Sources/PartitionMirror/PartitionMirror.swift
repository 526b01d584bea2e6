public import DeviceStore
import PrivateSync
public import PrivateSyncEngine
import PrivateSyncFileSystem
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The demo app's sync written as a CKSyncEngine delegate: the user-created store of a device, mirrored to the
/// user's private database through `PSSyncEngine`, as an app on a device would mirror it through `CKSyncEngine`.
///
/// The store is the truth: each write of a user-created record commits with its pending change (`RecordStore`
/// queues it in the record's own transaction), and the engine is handed those changes at every launch and after
/// every fetch. Only the user-created store is mirrored; the local-only store is a type the mirror cannot be given
/// (`RecordStore` of `LocalOnly`), and a fetched record of a type outside the user-created partition is never
/// stored. Records go up with their field versions (`syncFieldVersions`), and a conflict is merged per field, the
/// last writer winning (`FieldLevelLastWriterWins`), as the app's own engine does.
///
/// What the sweep of Apple's sample taught (docs/cksyncengine.md) is kept, with the same meaning: the engine's
/// events of an engine replaced are ignored; an encrypted-data reset uploads everything again. Two rules are the app's
/// own engine's instead: the data of an account left stays on the device (signed out, the account back resumes where
/// it stood; another account signed in pauses sync until the user chooses it, ``startFreshForSignedInAccount()``,
/// which keeps the data in an archive); and a zone deleted, by the user in Settings or by an app, pauses sync and
/// keeps everything here until the user turns it on again (``userTurnedSyncOn()``), which uploads it all again (a
/// save that finds a zone it knew missing waits for the database's list to say who deleted it); a save refused
/// for good is not retried; a save that finds its record deleted on the server (`unknownItem`) deletes it here
/// unless an edit made here waits for it; a fetched deletion deletes it (a delete wins), unless it was made anew here
/// under its name and never sent. A record of another account than the one signed in never goes up.
public final actor PartitionMirror: PSSyncEngineDelegate {
    /// The store mirrored: the device's user-created store.
    public nonisolated let store: RecordStore<UserCreated>
    /// The database the engine syncs with.
    public nonisolated let database: PSDatabase
    /// The zone the records live in.
    public nonisolated let zoneID: PSRecordZone.ID
    /// The file the bookkeeping lives in.
    public nonisolated let bookkeepingPath: String
    /// Whether the engine syncs by itself.
    public nonisolated let automaticallySync: Bool
    /// Where automatic syncs are scheduled, or `nil` for the engine's own scheduler.
    public nonisolated let scheduler: PSSyncScheduler?
    /// How much a write of the bookkeeping survives (a sweep's scratch disk needs no fsync).
    public nonisolated let durability: Durability
    /// A simulation's crash switch, the stores' too: once down, the bookkeeping is no longer written, as the stores
    /// commit nothing more, like a process killed at that write.
    nonisolated let crashSwitch: CrashSwitch?
    /// The engine's state and what the mirror knows of the account and the zone.
    public internal(set) var bookkeeping: MirrorBookkeeping
    /// The writes that failed, in order, the latest ``persistenceErrorLimit`` of them (the store's or the
    /// bookkeeping's), and the fetched records that could not be stored: a real app would tell the user.
    public internal(set) var persistenceErrors: [MirrorError] = []
    /// How many failures were kept in ``persistenceErrors`` since the mirror was opened, those dropped since
    /// included: a cycle whose count grew met one.
    public internal(set) var persistenceErrorsNoted = 0
    /// The records fetched with a value this device could not take, and the merges over CloudKit's record size
    /// that kept the server's version, since ``takeFetchedRecordProblems()`` last ran.
    var fetchedRecordProblemsMet: [SyncEvent] = []
    var engine: PSSyncEngine?
    /// Fetched pages in a row the store could not write (see ``pageRefetchLimit``).
    var pageWriteFailures = 0
    /// What of a fetch the store could not write, while the engine hears it again from the state before it, as the
    /// status shows it: waiting for the disk (full) or the store (locked past the wait), and whether it was a list
    /// of the database's changes rather than a page of the zone. Cleared once a page of the zone is written or a
    /// whole fetch went through (and, for a list, once a list is written), and when the data is bound to another
    /// account. Never set for another failure: a store that cannot be read shows no status at all.
    var fetchUnwritten: (wait: EngineOutcome, list: Bool)?
    /// How the store's last failed write failed, as the status would show it (``fetchUnwritten``): `nil` for a
    /// failure that is neither a full disk nor a busy store.
    var lastWriteFailureOutcome: EngineOutcome?
    /// How many of the store's writes failed since the mirror was made: a handler whose writes failed knows it.
    var storeWritesFailed = 0
    /// Whether the engine went on past a page the store could not write, once it had been fetched again
    /// ``pageRefetchLimit`` times in a row: none of its states is kept, and its next fetch starts a new engine from
    /// the state before the page (``hearAgainFromTheStateBefore(afterList:)``).
    var engineBehind = false
    /// Whether the store's marks of records deleted here (``EngineState/deletionsUnrecorded``) are all in the
    /// bookkeeping, and cleared: until then no first save is written down (``settleDeletionsUnrecorded()``).
    var deletionsSettled = false
    /// A write of the bookkeeping failed since the last that went through: the file may still hold what memory
    /// forgot (a first save that may have landed), so a delete is marked in the store whatever memory says.
    var bookkeepingFileBehind = false
    /// Whether the engine's fetch under way began after a save found the zone missing
    /// (``MirrorBookkeeping/zoneMissingHeard``): its list, read to the end, says who deleted the zone, or nothing.
    var fetchBeganWithZoneMissing = false
    /// How many times in a row a page the store could not write makes the engine start again from the state before
    /// it at once; after that, at its next fetch.
    static let pageRefetchLimit = 3
    let engineDelegate: (any PSSyncEngineDelegate)?
    /// How a conflict is merged.
    let resolver: any ConflictResolver = FieldLevelLastWriterWins()

    /// The zone the app's own engine syncs into, which the mirror uses too.
    public static let defaultZoneName = SyncEngine.defaultZoneName

    /// Opens the mirror of a store, reading its bookkeeping (a missing file starts from nothing).
    ///
    /// - Parameters:
    ///   - store: The user-created store.
    ///   - database: The private database to sync with.
    ///   - bookkeepingPath: The bookkeeping file, beside the store.
    ///   - zoneName: The zone; the app's own engine's by default.
    ///   - automaticallySync: Whether the engine syncs by itself.
    ///   - scheduler: Where automatic syncs run, or `nil` for the engine's own scheduler.
    ///   - durability: How much a write of the bookkeeping survives.
    ///   - engineDelegate: The engine's delegate when an object fronts this one (a test's flawed delegate, which
    ///     passes the events on); `nil` makes the mirror the delegate. The engine holds its delegate weakly.
    ///   - crashSwitch: A simulation's crash switch, the one the stores were opened with: the bookkeeping's writes
    ///     ask it too, so that a crash lands between any two of the mirror's writes. `nil` on a device.
    /// - Throws: ``MirrorError`` `damagedBookkeeping` for a bookkeeping file that cannot be read, which is left as
    ///   it is.
    public init(
        store: RecordStore<UserCreated>, database: PSDatabase, bookkeepingPath: String,
        zoneName: String = PartitionMirror.defaultZoneName, automaticallySync: Bool = true,
        scheduler: PSSyncScheduler? = nil, durability: Durability = .survivesPowerLoss,
        engineDelegate: (any PSSyncEngineDelegate)? = nil, crashSwitch: CrashSwitch? = nil
    ) throws(MirrorError) {
        self.crashSwitch = crashSwitch
        self.store = store
        self.database = database
        self.zoneID = PSRecordZone.ID(zoneName: zoneName)
        self.bookkeepingPath = bookkeepingPath
        self.automaticallySync = automaticallySync
        self.scheduler = scheduler
        self.durability = durability
        self.engineDelegate = engineDelegate
        var bookkeeping = try Self.readBookkeeping(at: bookkeepingPath)
        // A first save in flight when the last launch ended may have landed: nothing will say so.
        bookkeeping.firstSendMayHaveLanded.formUnion(bookkeeping.firstSendUnanswered)
        self.bookkeeping = bookkeeping
    }

    /// The engine, made at first use from the last state.
    public var syncEngine: PSSyncEngine {
        if let engine { return engine }
        return initializeSyncEngine()
    }

    /// Makes the engine, from the state last persisted, and gives it the store's unsent changes. Called at the first
    /// use, when the data's account comes back, after a start afresh, and after a fetched page could not be written
    /// (its events then come again): the engine it replaces is ignored from then on. An archive of the data's
    /// account that a start afresh killed midway left comes back first.
    ///
    /// - Returns: The new engine.
    @discardableResult
    func initializeSyncEngine() -> PSSyncEngine {
        // Made from the state kept, which is before any page an engine went past unwritten.
        engineBehind = false
        var configuration = PSSyncEngine.Configuration(
            database: database, stateSerialization: bookkeeping.stateSerialization, delegate: engineDelegate ?? self)
        configuration.automaticallySync = automaticallySync
        configuration.scheduler = scheduler
        // A start afresh killed after it bound the data, before the previous account's records left the store.
        var finishedStartFresh = false
        do {
            finishedStartFresh = try moveArchivePending() != nil
        } catch {
            note(error)
        }
        restoreArchivesOfTheDataAccount()
        settleDeletionsUnrecorded()
        // A reconciling pending in a bookkeeping file of an earlier version moves into the store, before any fetch can
        // end it (``MirrorBookkeeping/reconcileOnFullFetch``).
        if bookkeeping.reconcileOnFullFetch,
            write("keep the reconciling in the store", { try $0.updateEngineState { $0.reconcileOnFullFetch = true } })
                != nil
        {
            bookkeeping.reconcileOnFullFetch = false
            persistBookkeeping()
        }
        let engine = PSSyncEngine(configuration)
        self.engine = engine
        // A zone's save the last state still holds (dropped since, the process gone before the next state): with the
        // zone known, or sync paused, the engine would send it unasked.
        if bookkeeping.zoneKnown || !sendsChanges { dropZoneSave(from: engine) }
        // What the last state may not hold: changes written after it, or dropped by the engine on an error.
        addUnsentChanges(to: engine)
        if finishedStartFresh { bindAfterStartFresh() }
        return engine
    }

    // MARK: The user's writes

    /// Adds a user-created record and queues its upload.
    ///
    /// - Parameters:
    ///   - type: Its type, of the user-created partition.
    ///   - fields: Its fields.
    ///   - name: Its name, or `nil` for the store's next one.
    /// - Returns: The record as stored.
    /// - Throws: ``MirrorError`` `store`, wrapping what the store refused; nothing is written then.
    @discardableResult
    public func insert(
        _ type: ModelType<UserCreated>, fields: [String: FieldValue], name: String? = nil
    ) throws(MirrorError) -> StoredRecord {
        let record: StoredRecord
        do {
            // Written under the account the engine last reported signed in (none: it goes to the next one bound).
            record = try store.insert(
                type, fields: fields, origin: bookkeeping.engineAccount.map(UserRecordID.init(recordName:)),
                name: name, alongside: Self.markIfMadeAgain)
        } catch {
            throw MirrorError(.store, "could not add the \(type.name)", underlying: error)
        }
        queueInEngine(.saveRecord(recordID(record.name)))
        return record
    }

    /// Changes fields of a record and queues its upload; `nil` clears a field.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - changes: The fields to set or clear.
    /// - Returns: The record as stored now.
    /// - Throws: ``MirrorError`` `store`, wrapping what the store refused (`recordNotFound` among them).
    @discardableResult
    public func update(_ name: String, setting changes: [String: FieldValue?]) throws(MirrorError) -> StoredRecord {
        let record: StoredRecord
        do {
            record = try store.update(name, setting: changes)
        } catch {
            throw MirrorError(.store, "could not change \(name)", underlying: error)
        }
        queueInEngine(.saveRecord(recordID(name)))
        return record
    }

    /// Deletes a record and queues its deletion on the server.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: The record as it was.
    /// - Throws: ``MirrorError`` `store`, wrapping what the store refused (`recordNotFound` among them).
    @discardableResult
    public func delete(_ name: String) throws(MirrorError) -> StoredRecord {
        let record: StoredRecord
        // A record made later under this name is a new one, never sent: the store marks it so with the delete, and
        // the mark stays until the bookkeeping says it too.
        let unrecorded = bookkeeping.mayBeOnServer(name) || bookkeepingFileBehind
        do {
            record = try Self.delete(name, from: store, marked: unrecorded)
        } catch {
            throw MirrorError(.store, "could not delete \(name)", underlying: error)
        }
        if unrecorded {
            deletionsSettled = false
            settleDeletionsUnrecorded()
        }
        queueInEngine(.deleteRecord(recordID(name)))
        return record
    }

    // MARK: PSSyncEngineDelegate

    /// Handles one event of the engine.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - syncEngine: The engine.
    public func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        // An engine replaced (the data's account back, a start afresh, a page refetched) may still finish what it
        // was doing: none of it is this data's any more.
        guard syncEngine === engine else { return }
        switch event {
        case .accountChange(let event):
            handleAccountChange(event)
            return
        case .willFetchChanges where engineBehind:
            // The next fetch of an engine past a page the store could not write: from the state before the page.
            initializeSyncEngine()
            return
        case _ where engineBehind:
            // Past a page the store could not write, it is heard no more, as a replaced engine is: its states are
            // not kept (the one before the page stays), and neither is the end of its fetch (a reconciling ended
            // without the page's records seen deleted them; a pause read from a list that was never stored).
            return
        case .stateUpdate(let event):
            // Every state is kept, whoever the engine works for (a relaunch resumes this engine); the data's account's
            // also apart, to resume from when that account comes back.
            bookkeeping.stateSerialization = event.stateSerialization
            if engineServesTheData { bookkeeping.dataAccountState = event.stateSerialization }
            persistBookkeeping()
            return
        default:
            break
        }
        // An engine of another account than the data's (sync paused), or of none (signed out): none of its news is
        // the data's.
        guard engineServesTheData else { return }
        switch event {
        case .stateUpdate, .accountChange:
            break  // Handled above, whoever the engine works for.
        case .fetchedDatabaseChanges(let event):
            handleFetchedDatabaseChanges(event, syncEngine: syncEngine)
        case .fetchedRecordZoneChanges(let event):
            handleFetchedRecordZoneChanges(event)
        case .sentRecordZoneChanges(let event):
            handleSentRecordZoneChanges(event, syncEngine: syncEngine)
        case .sentDatabaseChanges(let event):
            handleSentDatabaseChanges(event)
        case .willFetchChanges:
            fetchBeganWithZoneMissing = bookkeeping.zoneMissingHeard
        case .didFetchChanges:
            handleDidFetchChanges(syncEngine)
        case .didFetchRecordZoneChanges(let event):
            handleDidFetchRecordZoneChanges(event)
        case .willFetchRecordZoneChanges, .willSendChanges, .didSendChanges:
            break
        }
    }

    /// The next batch: the engine's pending changes that the store still holds, each save read from the store.
    ///
    /// - Parameters:
    ///   - context: Why and how the send runs.
    ///   - syncEngine: The engine.
    /// - Returns: The batch, or `nil` when nothing is left.
    public func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        // An engine replaced sends nothing more, nor one past a page the store could not write (its answers would not
        // be heard); nor does one of another account than the data's, or one paused for the user's deletion of the
        // zone.
        guard syncEngine === engine, !engineBehind, let owner = bookkeeping.accountRecordName, sendsChanges,
            // Not before this engine fetched once: a fetch from no change token reports no deletion, so an engine
            // that sends first and fetches later never hears of a zone deleted in between (the user's deletion
            // undone by a save, or the device holding what the server lost, for ever: seeds 3460, 7110).
            syncEngine.hasDatabaseChangeToken
        else { return nil }
        let user = UserRecordID(recordName: owner)
        let scope = context.options.scope
        let inScope = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        guard !inScope.isEmpty else { return nil }
        let zone = ZoneID(uncheckedName: zoneID.zoneName)
        // What the store still holds unsent, by name: the names and kinds only, for every change; a record's fields
        // (up to a megabyte each) are read below, for the records the batch takes.
        let rows: [String: PendingChangeKind]
        do {
            rows = try store.syncSnapshot { transaction in
                var rows: [String: PendingChangeKind] = [:]
                for row in try transaction.pendingChanges(limit: Int.max) { rows[row.recordName] = row.kind }
                return rows
            }
        } catch {
            note(MirrorError(.store, "could not read the changes to send", underlying: error))
            return nil
        }
        // A change the store no longer holds was confirmed, or its record deleted: it leaves the engine's list.
        var stale: [PSSyncEngine.PendingRecordZoneChange] = []
        let changes = inScope.filter { change in
            let keep =
                switch change {
                case .saveRecord(let id): rows[id.recordName] == .save
                case .deleteRecord(let id): rows[id.recordName] == .delete
                }
            if !keep { stale.append(change) }
            return keep
        }
        if !stale.isEmpty { syncEngine.state.remove(pendingRecordZoneChanges: stale) }
        let store = store
        let ownerless = Mutex<[String]>([])
        var batch = await PSSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { id in
            let read = try? store.syncSnapshot { transaction -> (StoredRecord, SystemFields?)? in
                guard let record = try transaction.record(named: id.recordName) else { return nil }
                return (record, try transaction.serverFields(of: id.recordName)?.systemFields)
            }
            // A record of another account than the one signed in never goes up (its account's data that a failed
            // deletion left behind, or a store whose bookkeeping was lost); nor does one deleted since.
            guard let (record, serverFields) = read ?? nil, record.origin == nil || record.origin == user else {
                syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(id)])
                return nil
            }
            if record.origin == nil { ownerless.withLock { $0.append(record.name) } }
            return PSRecord(RecordMapping.cloudRecord(for: record, zone: zone, basedOn: serverFields))
        }
        // A record written with no account signed in becomes the account's it goes up to, before it leaves (the
        // app's own engine adopts it as it uploads it too). Left with no owner, a later switch of account made it
        // the next account's, and its next edit went into that account's zone (a review's finding).
        let adopted = ownerless.withLock { $0 }
        if !adopted.isEmpty,
            write(
                "adopt records written with no account",
                { transaction -> Bool in
                    for name in adopted { try transaction.adoptRecord(named: name, as: user) }
                    return true
                }) == nil
        {
            return nil
        }
        // Written down before the request leaves: if its answer is lost, the record may be on the server. A record
        // with no change tag goes up for the first time (or again, after its tag was cleared).
        var first = Set((batch?.recordsToSave ?? []).filter { $0.recordChangeTag == nil }.map(\.recordID.recordName))
        // The batch was read across an await, when the user's delete may have run: a record deleted meanwhile, not
        // yet counted among the first saves, was not marked, and must not leave as one now (its answer lost, a
        // record made again under its name would be taken for it).
        guard dropFirstSavesDeletedMeanwhile(from: &batch, first: &first) else { return nil }
        // A mark of a deletion left in the store would, settled later, forget a first save written down now.
        guard first.isEmpty || settleDeletionsUnrecorded() else { return nil }
        if !first.isSubset(of: bookkeeping.firstSendUnanswered) {
            bookkeeping.firstSendUnanswered.formUnion(first)
            // Not written down, a first save must not leave: its answer lost, nothing would say it may be there.
            guard persistBookkeeping() else { return nil }
        }
        return batch
    }

    // MARK: Helpers

    /// Takes out of a batch the first saves (no change tag) of records whose pending change is no longer a save:
    /// deleted while the batch was being read.
    ///
    /// - Parameters:
    ///   - batch: The batch; `nil` when nothing is left in it.
    ///   - first: The names of its first saves; those taken out leave it.
    /// - Returns: Whether the store could be read (nothing may leave otherwise).
    func dropFirstSavesDeletedMeanwhile(
        from batch: inout PSSyncEngine.RecordZoneChangeBatch?, first: inout Set<String>
    ) -> Bool {
        guard var sending = batch, !first.isEmpty else { return true }
        let candidates = first
        let gone: Set<String>
        do {
            gone = try store.syncSnapshot { transaction in
                try candidates.filter { try transaction.pendingChange(named: $0)?.kind != .save }
            }
        } catch {
            note(MirrorError(.store, "could not read the changes to send", underlying: error))
            return false
        }
        guard !gone.isEmpty else { return true }
        first.subtract(gone)
        sending.recordsToSave.removeAll { gone.contains($0.recordID.recordName) }
        batch = sending.recordsToSave.isEmpty && sending.recordIDsToDelete.isEmpty ? nil : sending
        return true
    }

    /// The engine's identifier of a record of the mirrored zone.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: Its identifier in the zone.
    func recordID(_ name: String) -> PSRecord.ID {
        PSRecord.ID(recordName: name, zoneID: zoneID)
    }

    /// Gives the engine a change the user just made, unless sync is paused (the user's deletion of the zone,
    /// another account) or signed out: the store keeps it queued for then.
    ///
    /// - Parameter change: The change.
    func queueInEngine(_ change: PSSyncEngine.PendingRecordZoneChange) {
        guard sendsChanges else { return }
        syncEngine.state.add(pendingRecordZoneChanges: [change])
    }

    /// Gives the engine every change the store holds (adding a change the engine holds changes nothing).
    ///
    /// Not the zone's save: a zone never there is created where a save fails for it, never on the guess that it may
    /// be gone, which would bring back, into a zone the user deleted, what this device held before it heard.
    func addUnsentChanges(to engine: PSSyncEngine) {
        // Paused (a deletion of the zone, another account), waiting to learn who deleted the zone, or signed out: the
        // store keeps them.
        guard sendsChanges else { return }
        let rows: [PendingChangeRow]
        do {
            rows = try store.pendingChanges()
        } catch {
            note(MirrorError(.store, "could not read the unsent changes", underlying: error))
            return
        }
        guard !rows.isEmpty else { return }
        engine.state.add(
            pendingRecordZoneChanges: rows.map { row in
                row.kind == .delete ? .deleteRecord(recordID(row.recordName)) : .saveRecord(recordID(row.recordName))
            })
    }

    /// Keeps a failure in ``persistenceErrors``, the latest ``persistenceErrorLimit`` of them: a store that fails
    /// every write must not make the list grow without end.
    ///
    /// - Parameter error: The failure.
    func note(_ error: MirrorError) {
        persistenceErrorsNoted += 1
        if persistenceErrors.count >= Self.persistenceErrorLimit { persistenceErrors.removeFirst() }
        persistenceErrors.append(error)
    }

    /// Keeps a record fetched with a value this device could not take for the cycle's report
    /// (``takeFetchedRecordProblems()``), the latest ``persistenceErrorLimit`` of them.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - problem: What was wrong, and what was done.
    func noteFetchedRecordProblem(_ name: String, _ problem: String) {
        if fetchedRecordProblemsMet.count >= Self.persistenceErrorLimit { fetchedRecordProblemsMet.removeFirst() }
        fetchedRecordProblemsMet.append(.fetchedRecordProblem(recordName: name, problem: problem))
    }

    /// The records fetched with a value this device could not take, and the merges too large to upload, since the
    /// last call, as the app's engine reports them in a cycle's events; the mirror forgets them (the store keeps the
    /// list the status reads, and the failures ``persistenceErrors``).
    ///
    /// - Returns: A `fetchedRecordProblem` or `mergeTooLarge` event for each, in the order met.
    func takeFetchedRecordProblems() -> [SyncEvent] {
        defer { fetchedRecordProblemsMet.removeAll() }
        return fetchedRecordProblemsMet
    }

    /// The failure kept when a merge is too large for CloudKit and the server's version is kept instead, so that the
    /// user learns which edit was dropped.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: The failure.
    static func mergeTooLarge(_ name: String) -> MirrorError {
        MirrorError(
            .mergeTooLarge,
            "\(name): the edits here and the server's together are over CloudKit's record size; the server's were kept")
    }

    /// Notes a merge too large to upload, for which the server's version was kept: as a failure the user learns
    /// which edit was dropped from, and as the cycle's event (a simulator exempts such a record from the merge
    /// rule, as the app's engine's report lets it).
    ///
    /// - Parameter name: The record's name.
    func noteMergeTooLarge(_ name: String) {
        note(Self.mergeTooLarge(name))
        if fetchedRecordProblemsMet.count >= Self.persistenceErrorLimit { fetchedRecordProblemsMet.removeFirst() }
        fetchedRecordProblemsMet.append(.mergeTooLarge(recordName: name))
    }

    /// How many failures ``persistenceErrors`` keeps.
    public static let persistenceErrorLimit = 100

    /// Runs a write of the store; a failure is kept in ``persistenceErrors``.
    ///
    /// - Parameters:
    ///   - what: What the write does, for the error.
    ///   - body: The write.
    /// - Returns: What `body` returned, or `nil` when the write failed.
    @discardableResult
    func write<T: Sendable>(_ what: String, _ body: (SyncTransaction) throws -> T) -> T? {
        do {
            return try store.syncTransaction(body)
        } catch {
            storeWritesFailed += 1
            lastWriteFailureOutcome = EngineOutcome(storageFailure: error)
            note(MirrorError(.store, "could not \(what)", underlying: error))
            return nil
        }
    }
}

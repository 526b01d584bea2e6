public import DeviceStore
public import PrivateCloud
import PrivateSyncFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The app, running on a device after a launch: its two stores, and (when sync runs) its container and engine.
///
/// Writes go through the app so that each record is stamped with the account signed in when it was written; the
/// status is derived on demand from the facts (``status()``).
public final class LaunchedApp: Sendable {
    /// The device.
    public let device: SimulatedDevice
    /// The host's environment.
    public let environment: LaunchEnvironment
    /// What the launch did.
    public let record: LaunchRecord
    /// The two stores.
    public let stores: DeviceStores
    /// The container, when the user-created store is cloud-configured.
    public let container: (any PrivateContainer)?
    /// The app's own engine, when the user-created store is cloud-configured and the build runs it; `nil` on a
    /// build of CKSyncEngine's delegate (`AppSyncEngine.cksyncengine`), whose mirror is made above this layer.
    public let engine: SyncEngine?

    /// Whether this app is a read-only view of a device (a command that only reads): it shows the status the app
    /// would show at its next action, so a launch that fell back for an account that has since changed reads as
    /// reconfigured rather than naming a cause that no longer holds.
    let isReadOnlyView: Bool

    init(
        device: SimulatedDevice, environment: LaunchEnvironment, record: LaunchRecord, stores: DeviceStores,
        isReadOnlyView: Bool = false
    ) {
        self.isReadOnlyView = isReadOnlyView
        self.device = device
        self.environment = environment
        self.record = record
        self.stores = stores
        if record.userCreatedStore == .cloud && !isReadOnlyView {
            // Step 6. Without the entitlement (and with its check skipped) this traps, as CKContainer does. A
            // read-only view (a command that only reads) never touches the container, so it opens none.
            let container = environment.opener.openContainer(
                identifier: environment.containerIdentifier, entitlements: device.entitlements)
            self.container = container
            // A build whose store CKSyncEngine syncs runs no engine of the app's own: its delegate (the mirror) is
            // made above this layer, over this container (`MirroredApp`).
            if device.profile.build.syncEngine != .appEngine {
                self.engine = nil
                return
            }
            self.engine = SyncEngine(
                store: stores.userCreated, container: container, clock: environment.clock,
                resolver: environment.resolver,
                retryPolicy: environment.retryPolicy, observer: environment.observer,
                isSyncWanted: { [device] in (try? device.syncPreference()) ?? false },
                restoreArchives: { [device, stores] user throws(StoreError) in
                    try Self.restoreArchives(of: user, device: device, stores: stores)
                })
        } else {
            self.container = nil
            self.engine = nil
        }
    }

    /// The schema and its partition.
    public var partition: SyncPartition { environment.partition }

    // MARK: Writing

    /// Adds a record of a user-created type to the user-created store, with its pending change.
    ///
    /// - Returns: The record as stored (durably, with its pending change).
    /// - Throws: `StoreError`: what the store refuses.
    @discardableResult
    public func add(_ type: ModelType<UserCreated>, fields: [String: FieldValue]) throws(StoreError) -> StoredRecord {
        try stores.userCreated.insert(type, fields: fields, writtenUnder: device.session.account)
    }

    /// Adds a record of a local-only type to the local-only store.
    ///
    /// - Returns: The record as stored (durably).
    /// - Throws: `StoreError`: what the store refuses.
    @discardableResult
    public func add(_ type: ModelType<LocalOnly>, fields: [String: FieldValue]) throws(StoreError) -> StoredRecord {
        try stores.localOnly.insert(type, fields: fields, writtenUnder: device.session.account)
    }

    /// Adds a record to the store its type's partition names.
    ///
    /// - Returns: The record as stored (durably, with its pending change when it is user-created).
    /// - Throws: `StoreError`: what the store refuses.
    @discardableResult
    public func add(_ type: PartitionedType, fields: [String: FieldValue]) throws(StoreError) -> StoredRecord {
        switch type {
        case .userCreated(let type): try add(type, fields: fields)
        case .localOnly(let type): try add(type, fields: fields)
        }
    }

    /// Adds a record of the type of that name, for a caller that has the name only (a test, a script): the name
    /// is looked up once, and the record added as ``add(_:fields:)-(PartitionedType,_)`` adds it.
    ///
    /// - Parameters:
    ///   - typeName: The record type.
    ///   - fields: Its fields.
    /// - Returns: The record as stored (durably, with its pending change when it is user-created).
    /// - Throws: `StoreError`: `unknownType` for a type the schema does not declare, or what the store refuses.
    @discardableResult
    public func add(_ typeName: String, fields: [String: FieldValue]) throws(StoreError) -> StoredRecord {
        try add(declaredType(typeName), fields: fields)
    }

    /// The declared type of that name, refused as a store refuses a type the schema does not declare.
    ///
    /// - Throws: `StoreError` `unknownType`, listing the known types.
    public func declaredType(_ typeName: String) throws(StoreError) -> PartitionedType {
        guard let type = partition.partitionedType(named: typeName) else {
            let known = partition.schema.recordTypes.map(\.name).joined(separator: ", ")
            throw StoreError(
                .unknownType, "unknown record type \(CloudKitNames.quoted(typeName)) (known types: \(known))")
        }
        return type
    }

    /// Changes fields of a record, in whichever store holds it.
    ///
    /// - Throws: `StoreError` `recordNotFound` when neither store holds it, or what the store refuses.
    @discardableResult
    public func edit(_ name: String, setting changes: [String: FieldValue?]) throws(StoreError) -> StoredRecord {
        if try stores.userCreated.containsRecord(named: name) {
            return try stores.userCreated.update(name, setting: changes)
        }
        if try stores.localOnly.containsRecord(named: name) {
            return try stores.localOnly.update(name, setting: changes)
        }
        throw StoreError(.recordNotFound, "no record named \(name) on device \(device.name)")
    }

    /// Deletes a record from whichever store holds it.
    ///
    /// - Throws: `StoreError` `recordNotFound` when neither store holds it.
    @discardableResult
    public func delete(_ name: String) throws(StoreError) -> StoredRecord {
        if try stores.userCreated.containsRecord(named: name) { return try stores.userCreated.delete(name) }
        if try stores.localOnly.containsRecord(named: name) { return try stores.localOnly.delete(name) }
        throw StoreError(.recordNotFound, "no record named \(name) on device \(device.name)")
    }

    /// The record of that name, from either store, with its partition.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: The record and the partition of the store that holds it, or `nil` when neither store has it (a
    ///   missing record is not an error here, unlike ``edit(_:setting:)`` and ``delete(_:)``).
    /// - Throws: `StoreError` when a store cannot be read.
    public func find(_ name: String) throws(StoreError) -> (record: StoredRecord, partition: Partition)? {
        if let record = try stores.userCreated.record(named: name) { return (record, .userCreated) }
        if let record = try stores.localOnly.record(named: name) { return (record, .localOnly) }
        return nil
    }

    // MARK: Status

    /// The facts the status is derived from, read now.
    public func facts() throws(StoreError) -> SyncFacts {
        try Self.facts(
            device: device, record: record, userCreated: stores.userCreated, now: environment.clock.now(),
            asAtNextAction: isReadOnlyView ? environment : nil, delegateEngineFacts: environment.delegateEngineFacts)
    }

    /// The facts of a device's app, read from its launch record, its account and its user-created store.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - record: Its last launch.
    ///   - userCreated: Its user-created store.
    ///   - now: The time the facts are read.
    ///   - environment: For a view of a command that only reads: the facts as the app's next action will have
    ///     them (the CLI's next command that writes reopens the app), so the view never shows a state whose cause
    ///     is gone; `nil` for a running app, which reacts by itself (``reactToAccountChange()``, a relaunch).
    /// - Returns: The facts.
    /// - Throws: ``StoreError`` when the store cannot be read.
    static func facts(
        device: SimulatedDevice, record: LaunchRecord, userCreated: RecordStore<UserCreated>, now: Date? = nil,
        asAtNextAction environment: LaunchEnvironment? = nil
    ) throws(StoreError) -> SyncFacts {
        let (engineState, pendingChanges) = try EngineState.readWithPendingCount(from: userCreated)
        let (account, status) = device.session.current
        var facts = SyncFacts(
            syncWanted: record.syncWanted, userCreatedStoreIsCloud: record.userCreatedStore == .cloud,
            launchFallback: record.fallbackReason, accountStatus: status, currentUser: account?.userRecordID,
            boundUser: engineState.boundUser, enginePause: engineState.pause, lastOutcome: engineState.lastOutcome,
            nextAttempt: engineState.nextAttempt, initialFetchDone: engineState.initialFetchDone,
            pendingChanges: pendingChanges, now: now)
        facts.fetchedRecordProblems = engineState.fetchedRecordProblems
        guard let environment else { return facts }
        if LaunchSequence.buildLostEntitlement(since: record, device: device, environment: environment) {
            // Upgraded since to a build without the entitlement: the next open is a cold start of that build, which
            // falls back (missingEntitlement). Never "on" meanwhile.
            facts.userCreatedStoreIsCloud = false
            facts.launchFallback = .missingEntitlement
        } else if LaunchSequence.accountChanged(since: record, device: device) {
            // The launch fell back for the account, and the account has changed since: the app reconfigures at its
            // next action, so the view shows the status that reconfiguration gives, never a cause that no longer
            // holds. (The store file is the same either way.)
            facts.userCreatedStoreIsCloud = true
            facts.launchFallback = nil
        }
        return facts
    }

    /// The facts of a device's app (``facts(device:record:userCreated:now:asAtNextAction:)``), the engine's part
    /// from CKSyncEngine's delegate when the device's build is one: the store's ``EngineState`` is the app engine's,
    /// which such a build never writes.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - record: Its last launch.
    ///   - userCreated: Its user-created store.
    ///   - now: The time the facts are read.
    ///   - environment: For a view of a command that only reads, as above; `nil` for a running app.
    ///   - delegateEngineFacts: Where the engine's facts come from on a build of CKSyncEngine's delegate.
    /// - Returns: The facts.
    /// - Throws: ``StoreError`` when the store or the delegate's files cannot be read.
    static func facts(
        device: SimulatedDevice, record: LaunchRecord, userCreated: RecordStore<UserCreated>, now: Date?,
        asAtNextAction environment: LaunchEnvironment?, delegateEngineFacts: (any DelegateEngineFacts)?
    ) throws(StoreError) -> SyncFacts {
        var facts = try facts(
            device: device, record: record, userCreated: userCreated, now: now, asAtNextAction: environment)
        if device.profile.build.syncEngine != .appEngine, let delegateEngineFacts, facts.userCreatedStoreIsCloud {
            try delegateEngineFacts.readEngineFacts(of: device, store: userCreated, into: &facts)
        }
        return facts
    }

    /// Resets the sync engine's bookkeeping and keeps the data (``SyncEngine/resetBookkeeping(of:signedIn:)``).
    ///
    /// - Throws: `StoreError` when the store cannot be written, or `invalidValue` when it belongs to another account
    ///   than the one signed in.
    public func resetSyncBookkeeping() throws(StoreError) {
        try SyncEngine.resetBookkeeping(of: stores.userCreated, signedIn: device.session.account?.userRecordID)
    }

    /// The sync engine's state, read from the user-created store (also when sync does not run on this launch).
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public func engineState() throws(StoreError) -> EngineState {
        try EngineState.read(from: stores.userCreated)
    }

    /// The status the settings screen shows, derived from the facts.
    public func status() throws(StoreError) -> SyncStatus {
        SyncStatus.derive(from: try facts())
    }

    // MARK: Syncing

    /// One engine cycle, or `nil` when sync does not run (off, or fell back to local) or the build is CKSyncEngine's
    /// delegate (its cycle is `MirroredApp`'s).
    ///
    /// - Parameter force: Ignore the retry schedule (a user's pull to refresh).
    @discardableResult
    public func sync(force: Bool = false) async -> SyncReport? {
        guard let engine else { return nil }
        return await engine.sync(force: force)
    }

    /// Half a cycle: sends pending changes without fetching first, or `nil` when sync does not run. A test stops a
    /// device here to make an upload meet a conflict deterministically.
    ///
    /// - Parameter force: Ignore the retry schedule.
    /// - Returns: What moved, and how the attempt ended.
    @discardableResult
    public func sendChanges(force: Bool = true) async -> SyncReport? {
        guard let engine else { return nil }
        return await engine.sendChanges(force: force)
    }

    /// Half a cycle: fetches changes without sending, or `nil` when sync does not run. A test sees the state straight
    /// after a conflict was merged at fetch (its pending count and local value) before anything is sent.
    ///
    /// - Parameter force: Ignore the retry schedule.
    /// - Returns: What moved, and how the attempt ended.
    @discardableResult
    public func fetchChanges(force: Bool = true) async -> SyncReport? {
        guard let engine else { return nil }
        return await engine.fetchChanges(force: force)
    }

    /// Brings back the records this device archived for `user`, before a store that started afresh is bound to
    /// it: a user who switched accounts, started afresh and switched back before syncing would otherwise find the
    /// first account's records (and edits not yet sent) kept in an archive for good, as only a start-fresh restores
    /// them. The engine calls it at the binding itself, with the account it binds to (``SyncEngine``'s
    /// `restoreArchives`): called before the cycle instead, with the account signed in then, a sign-in between the
    /// two left the new account's archive behind (the sweep at fae632e, seeds 200, 485 and 8805; issue 28).
    ///
    /// A failure leaves the archive as it is and the store unbound, and the cycle does not run: the next sync tries
    /// again.
    ///
    /// - Parameters:
    ///   - user: The account the store is about to be bound to.
    ///   - device: The device whose archives to read.
    ///   - stores: Its stores.
    /// - Throws: `StoreError` when an archive cannot be brought back or removed.
    static func restoreArchives(
        of user: UserRecordID, device: SimulatedDevice, stores: DeviceStores
    )
        throws(StoreError)
    {
        let folder = device.appGroup.archives
        guard RecordStore<UserCreated>.hasAccountArchive(of: user, in: folder) else { return }
        let lock = try RecordStore<UserCreated>.lockAccountArchives(in: folder)
        defer { lock.unlock() }
        // Read again under the lock: another process may have bound the store, or restored, meanwhile.
        guard try EngineState.read(from: stores.userCreated).boundUser == nil else { return }
        try stores.userCreated.restoreAccountArchives(of: user, in: folder)
    }

    /// Flips the sync switch as the app does: saves the preference and reconfigures the stores, as a new
    /// ModelContainer would. Turning sync on is also the user's consent to upload again after they deleted the
    /// app's iCloud data, and ends a full-storage pause.
    ///
    /// - Parameter enabled: The new switch position.
    /// - Returns: The app as reconfigured; this one should no longer be used.
    /// - Throws: ``LaunchError`` when the preference cannot be saved or the stores cannot be opened.
    public func setSyncEnabled(_ enabled: Bool) throws(LaunchError) -> LaunchedApp {
        do {
            try device.setSyncPreference(enabled)
        } catch {
            throw LaunchError(.fileSystem, underlying: error)
        }
        let app = try LaunchSequence(device: device, environment: environment).run()
        if enabled, let engine = app.engine {
            do {
                try engine.userTurnedSyncOn()
            } catch {
                throw LaunchError(.storage, underlying: error)
            }
        }
        return app
    }

    /// Reacts to a change of the device's account, as an app observing `CKAccountChanged` does: when this launch
    /// fell back to a local store because of the account (signed out, restricted, temporarily unavailable) and the
    /// account is no longer in that state, the stores are reconfigured, so the next cycle runs without a relaunch.
    ///
    /// Otherwise the engine hears of the change (``SyncEngine/accountDidChange()``), so that an attempt stopped by the
    /// account no longer keeps it from asking to run.
    ///
    /// - Returns: The app as reconfigured, or this one when nothing needed to change.
    /// - Throws: ``LaunchError`` when the stores cannot be opened again, or the engine's state cannot be written.
    public func reactToAccountChange() throws(LaunchError) -> LaunchedApp {
        guard LaunchSequence.accountChanged(since: record, device: device) else {
            do {
                try engine?.accountDidChange()
            } catch {
                throw LaunchError(opening: error)
            }
            return self
        }
        return try LaunchSequence(device: device, environment: environment).run()
    }

    /// After an account switch (`accountChanged`): keeps the previous account's records on the device, in an
    /// archive store beside the active one, and lets the active store start afresh with the account signed in now.
    /// Records written under the new account, or with no account, stay and are uploaded to it; records this device
    /// archived earlier for the new account come back. Nothing is deleted anywhere, and nothing of the previous
    /// account ever reaches the new one.
    ///
    /// - Returns: The archive file, and how many records it holds.
    /// - Throws: `StoreError` when the store is not bound to another account, or the archive cannot be written.
    @discardableResult
    public func startFreshForSignedInAccount() throws(StoreError) -> (path: String, records: Int) {
        let folder = device.appGroup.archives
        // One start-fresh at a time on a device, in this process or another: two would write one archive name and
        // remove archives the other is reading. The state is read under the lock, so the second finds the first done.
        let lock = try RecordStore<UserCreated>.lockAccountArchives(in: folder)
        defer { lock.unlock() }
        let state = try EngineState.read(from: stores.userCreated)
        guard let previous = state.boundUser, previous != device.session.account?.userRecordID else {
            throw StoreError(
                .invalidValue,
                "device \(device.name)'s data already belongs to the signed-in account; there is nothing to start afresh from"
            )
        }
        let current = device.session.account?.userRecordID
        // The copy and the removal are one write transaction: from the copy to the commit of the removal, every other
        // writer (an edit in another process) waits, so the archive holds exactly what is removed, however busy the
        // store. (An optimistic copy, checked and made again when an edit landed in between, never finished while
        // two processes kept editing: issue 22's torture.) The archive is checked against the store in the removing
        // transaction all the same (`writeAccountArchive` reads it back).
        let (path, count) = try stores.userCreated.syncTransaction { transaction -> (String, Int) in
            let active = try transaction.archivableRows(of: previous)
            let (path, count) = try stores.userCreated.writeAccountArchive(of: previous, in: folder, holding: active)
            try transaction.removeRecords(of: previous)
            // A new epoch, in the same transaction: a cycle still running for the previous account (in this
            // process or another) applies nothing more, so none of that account's records come back here.
            try transaction.updateEngineState { state in
                // Read again in the removing transaction: another process may have started afresh meanwhile.
                guard state.boundUser == previous else {
                    throw StoreError(
                        .invalidValue,
                        "device \(device.name)'s data no longer belongs to the previous account; nothing was removed"
                    )
                }
                state = state.afterStartFresh()
            }
            try transaction.queueEverythingForUpload(to: current)
            return (path, count)
        }
        // Data this device kept apart for the account signed in now, when it started afresh for another, comes back.
        if let current { try stores.userCreated.restoreAccountArchives(of: current, in: folder) }
        return (path, count)
    }
}

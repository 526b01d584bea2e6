import DeviceStore
import PartitionMirror
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A run whose devices' build is CKSyncEngine's delegate (``SimulationOptions/build`` `.cksyncengine`): the same
/// steps, interleavings and oracle, with the device's sync asked of the mirror (``MirroredApp``) where the app's build
/// asks its own engine. Each question below answers as the app's engine does on its build, so a run of that build
/// is unchanged.
///
/// The mirror is opened for each cycle and ended with it, as `privatesync sync now` opens it in its process: while a
/// cycle runs, the user's actions on the device go through that mirror (one process, one mirror), and an app
/// instance killed or relaunched meanwhile ends the process it ran in (``endMirroredProcess(_:)``).
extension Simulation {
    /// Whether the devices' build is CKSyncEngine's delegate.
    var runsMirror: Bool { options.build == .cksyncengine }

    /// Whether sync runs in this app instance: its engine on the app's build, its container (which the mirror syncs
    /// through) on a build of CKSyncEngine's delegate.
    ///
    /// - Parameter app: The app instance.
    /// - Returns: Whether a cycle can run in it.
    func syncs(_ app: LaunchedApp) -> Bool {
        app.engine != nil || (runsMirror && app.container != nil)
    }

    /// The account the device's data is bound to, as its engine or its mirror recorded it.
    ///
    /// - Parameter app: The app instance.
    /// - Returns: The account's user record, or `nil` when none is bound or the state cannot be read.
    func boundUser(_ app: LaunchedApp) -> UserRecordID? {
        if let engine = app.engine { return try? engine.state().boundUser }
        guard runsMirror, app.container != nil else { return nil }
        return try? app.facts().boundUser
    }

    /// The account the device's data is bound to, read so that a state that cannot be read stops the run on the
    /// app's build, as it always did (``boundUser(_:)`` reads it as none).
    ///
    /// - Parameter app: The app instance.
    /// - Returns: The account's user record, or `nil` when none is bound.
    /// - Throws: `StoreError` when the app engine's state cannot be read.
    func recordedBoundUser(_ app: LaunchedApp) throws -> UserRecordID? {
        runsMirror ? boundUser(app) : try app.engine?.state().boundUser
    }

    /// How many changes wait to go up to the bound account.
    ///
    /// - Parameter app: The app instance.
    /// - Returns: The count, or `nil` when sync does not run in it or its state cannot be read.
    func pendingChangeCount(_ app: LaunchedApp) -> Int? {
        if let engine = app.engine { return try? engine.pendingChangeCount() }
        guard runsMirror, app.container != nil else { return nil }
        return try? app.facts().pendingChanges
    }

    /// When the device's sync wants to run next: its engine's date on the app's build; on CKSyncEngine's delegate,
    /// now while changes wait and sync is not paused (CKSyncEngine's automatic sync sends as soon as changes are
    /// queued, and retries a failed send by its own schedule), else not until something happens.
    ///
    /// - Parameter device: The device.
    /// - Returns: The date, or `nil`.
    func nextRunDate(_ device: Device) -> Date? {
        guard let app = device.app else { return nil }
        if let engine = app.engine { return engine.nextRunDate() }
        guard runsMirror, app.container != nil, let facts = try? app.facts(), facts.enginePause == nil,
            facts.boundUser == nil || facts.boundUser == facts.currentUser, facts.pendingChanges > 0
        else { return nil }
        return device.clock.now()
    }

    /// One cycle of the mirror, opened for it and ended with it.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: Its running app.
    /// - Returns: What the cycle moved, or `nil` when the mirror does not run on this launch.
    func mirroredCycle(_ device: Device, app: LaunchedApp) async -> SyncReport? {
        let mirrored: MirroredApp
        do {
            guard let opened = try MirroredApp.open(app) else { return nil }
            mirrored = opened
        } catch {
            // A crash armed at the instance's next commit can strike the opening's own clean-up; anything else is
            // the mirror refusing its own files, which a run must never meet.
            if device.crashSwitch.isDown { return SyncReport() }
            failToRun("\(device.name): the mirror could not be opened: \(error)")
            return nil
        }
        device.mirrored = mirrored
        let report = await mirrored.sync()
        if device.mirrored === mirrored { device.mirrored = nil }
        mirrored.releaseFolder()
        return report
    }

    /// Ends the process of a device's app instance that a kill or a relaunch replaces while its mirror's cycle is
    /// suspended in a request: its crash switch goes down (nothing of it writes again) and its folder lock is
    /// released, as the end of the process would, so that the next instance's mirror can open.
    ///
    /// - Parameter device: The device.
    func endMirroredProcess(_ device: Device) {
        guard let mirrored = device.mirrored else { return }
        if !device.crashSwitch.isDown { device.crashSwitch.crash() }
        mirrored.releaseFolder()
        device.mirrored = nil
    }

    /// Runs `body` on the mirror of the device's app: the one its cycle in flight runs, or one opened for `body`.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: Its running app.
    ///   - body: What to do with the mirror.
    /// - Returns: What `body` returned, or `nil` when the mirror does not run on this launch.
    /// - Throws: What opening the mirror or `body` throws.
    func withMirror<T>(
        _ device: Device, _ app: LaunchedApp, _ body: (MirroredApp) async throws -> T
    ) async throws -> T? {
        if let mirrored = device.mirrored { return try await body(mirrored) }
        guard let mirrored = try MirroredApp.open(app) else { return nil }
        // Held as the device's mirror while `body` runs: an action landing in a fetch it makes goes through it.
        device.mirrored = mirrored
        defer {
            if device.mirrored === mirrored { device.mirrored = nil }
            mirrored.releaseFolder()
        }
        return try await body(mirrored)
    }

    /// Deletes a record as the device's build does: through the store on the app's build; on CKSyncEngine's
    /// delegate, a user-created record through the mirror of the cycle in flight, else with the mirror's marks
    /// (``MirroredApp/deleteRecord(_:of:)``).
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - device: The device.
    ///   - app: Its running app.
    /// - Throws: What the store or the mirror refuses.
    func deleteRecord(_ name: String, on device: Device, in app: LaunchedApp) async throws {
        guard runsMirror, try app.stores.userCreated.containsRecord(named: name) else {
            try app.delete(name)
            return
        }
        if let mirrored = device.mirrored {
            try await mirrored.mirror.delete(name)
        } else {
            try MirroredApp.deleteRecord(name, of: app)
        }
    }

    /// Adds a record under a name the app chose, as the device's build does: a user-created one on CKSyncEngine's
    /// delegate is marked as made anew when its name was deleted here (``MirroredApp/addRecord(_:name:fields:of:)``).
    ///
    /// - Parameters:
    ///   - typeName: The record's type.
    ///   - name: Its name.
    ///   - fields: Its fields.
    ///   - app: The running app.
    /// - Returns: The record as stored.
    /// - Throws: What the store refuses.
    func addRecord(
        _ typeName: String, name: String, fields: [String: FieldValue], in app: LaunchedApp
    ) throws -> StoredRecord {
        guard runsMirror, case .userCreated(let type) = try app.declaredType(typeName) else {
            return try app.add(typeName, name: name, fields: fields)
        }
        return try MirroredApp.addRecord(type, name: name, fields: fields, of: app)
    }

    /// One forced cycle of the heal on a build of CKSyncEngine's delegate, and whether it moved anything: what its
    /// report counts, or a cycle that crashed, did not succeed or left changes it would send now (the mirror's report counts
    /// only what its engine of the moment kept, so a cycle whose engine was made again may count nothing), so that
    /// another round follows.
    ///
    /// - Parameter device: The device.
    /// - Returns: How much moved; 0 when sync does not run or the cycle moved nothing and left nothing.
    func healingCycleMoved(_ device: Device) async -> Int {
        guard let app = device.app, syncs(app) else { return 0 }
        let crashes = result.crashes
        guard let report = await sync(device, force: true, why: "heal"), result.crashes == crashes,
            report.outcome == .succeeded, nextRunDate(device) == nil
        else { return 1 }
        return report.sentSaves + report.sentDeletes + report.fetchedModifications + report.fetchedDeletions
    }

    /// The user's consent to upload again, heard as the device's build hears it: the app's engine in the switch
    /// itself; CKSyncEngine's delegate by its mirror (``MirroredApp/userTurnedSyncOn()``), as `sync on` runs it.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: The app the switch turned on.
    /// - Throws: What the mirror throws.
    func hearConsent(_ device: Device, _ app: LaunchedApp) async throws {
        guard runsMirror else { return }
        _ = try await withMirror(device, app) { try await $0.userTurnedSyncOn() }
        // A kill inside the consent's bookkeeping write throws nothing (the next launch asks again): the process is
        // gone all the same, and the consent not taken.
        if app.environment.crashSwitch?.isDown == true {
            throw StoreError(.processCrashed, "the process crashed (simulated) while the mirror took the consent")
        }
    }

    /// The user starts afresh with the account signed in, as the device's build does it.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: Its running app.
    /// - Returns: The archive made and how many records it holds, or `nil` when the mirror finds nothing to start
    ///   afresh from (the app's engine throws then).
    /// - Throws: What the start afresh throws.
    func startFreshForSignedInAccount(
        _ device: Device, _ app: LaunchedApp
    ) async throws -> (path: String, records: Int)? {
        guard runsMirror else { return try app.startFreshForSignedInAccount() }
        // While a cycle runs, its engine is busy with the operation this action landed in: the mirror's own start
        // afresh runs, without the fetch `MirroredApp`'s adds for an engine that has not heard of the switch (that
        // fetch would wait for the operation, which waits for this action). Such an engine finds nothing to start
        // afresh from yet, and the user tries again later, as on a device.
        if let mirrored = device.mirrored { return try await mirrored.mirror.startFreshForSignedInAccount() }
        // `MirroredApp`'s start afresh may run a fetch first: a cycle of the store, which the first sync's model
        // then cannot claim has not begun.
        if device.firstSync == .notStarted { device.firstSync = .started }
        return try await withMirror(device, app) { try await $0.startFreshForSignedInAccount() } ?? nil
    }

    /// Notes saves the server refused one by one as its word on the record. The app's engine sends them again;
    /// CKSyncEngine's delegate takes such a refusal as final, as CloudKit means it (`serverRejectedRequest` is not
    /// among the errors CKSyncEngine retries; a record over the request's limit alone is refused again), and keeps
    /// the record on the device, its change dropped (docs/simulator.md, "The app simulator over the delegate's
    /// build"). The simulator's storms refuse a save once, at random: on that build the record is then owed to no
    /// server until the user writes it again.
    ///
    /// - Parameters:
    ///   - name: The device.
    ///   - names: The records refused.
    func noteRefused(device name: String, names: [String]) {
        guard runsMirror, let device = devices.first(where: { $0.name == name }),
            let store = device.app?.stores.userCreated
        else { return }
        for refused in names {
            guard let record = try? store.record(named: refused) else { continue }
            device.refusedForGood[refused] = record.fieldVersions
        }
    }

    /// Whether a device holds a record exactly as it was when the server refused its save for good: only then is it
    /// owed to no server (``noteRefused(device:names:)``). Changed since (written again, or taken from a fetch), it
    /// is held to every check again.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - record: The record it holds, or `nil` when it holds none.
    /// - Returns: Whether the record is the one refused.
    func holdsAsRefused(_ device: Device, _ record: StoredRecord?) -> Bool {
        guard let record, let refused = device.refusedForGood[record.name] else { return false }
        return refused == record.fieldVersions
    }

    /// Whether the account signed in on the device is the one its data belongs to, as its mirror's bookkeeping
    /// says.
    ///
    /// - Parameter app: The app.
    /// - Returns: Whether they are the same account.
    func signedIntoTheDataAccount(_ app: LaunchedApp) -> Bool {
        app.device.session.account?.userRecordID.recordName == MirroredApp.dataAccount(of: app.device)
    }

    /// Whether the app instance a user's action ran in was killed while it ran, and another launched since: a
    /// crash that landed in a fetch the action made (a delegate's build's start afresh fetches first when its engine
    /// has not heard of the switch), noted when it struck. The action then failed with the kill, which is no failure
    /// of the run.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: The instance the action ran in.
    /// - Returns: Whether it was killed and replaced.
    func killedMeanwhile(_ device: Device, _ app: LaunchedApp) -> Bool {
        app.environment.crashSwitch?.isDown == true && device.app !== app
    }

    /// The account the store's data belongs to, whether sync runs or not: the store's binding on the app's build, the
    /// mirror's bookkeeping on CKSyncEngine's delegate (whose store keeps no binding of its own).
    ///
    /// - Parameter app: The app.
    /// - Returns: The account's user record name, or `nil` when none.
    func boundAccountName(_ app: LaunchedApp) -> String? {
        runsMirror ? MirroredApp.dataAccount(of: app.device) : (try? app.facts().boundUser)?.recordName
    }

    /// The pause of a device's sync and the account its data belongs to, as its engine recorded them: the facts on
    /// the app's build; on CKSyncEngine's delegate, its mirror's bookkeeping, whose pause the facts of a launch with
    /// the switch off do not read (a cycle that learned of a deletion can end after the user turned sync off).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - facts: The facts of its app.
    /// - Returns: The pause, and the bound account.
    func deletionFacts(_ device: Device, _ facts: SyncFacts) -> (pause: PauseReason?, bound: UserRecordID?) {
        guard runsMirror, let app = device.app else { return (facts.enginePause, facts.boundUser) }
        guard let kept = MirroredApp.bookkeeping(of: app.device) else { return (nil, nil) }
        let pause: PauseReason? =
            kept.pausedForUserDeletion ? .userDeletedZone : facts.userCreatedStoreIsCloud ? facts.enginePause : nil
        return (pause, kept.accountRecordName.map(UserRecordID.init(recordName:)))
    }
}

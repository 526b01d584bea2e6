public import DeviceStore
public import PrivateSync
import PrivateSyncEngine
import PrivateSyncFileSystem

/// The demo app on a device whose build is CKSyncEngine's delegate (`AppSyncEngine.cksyncengine`): the app as its
/// launch left it (the launch sequence, both traps and the fallback are the app's, unchanged), with
/// ``PartitionMirror`` syncing its user-created store through the CKSyncEngine-shaped engine over the container the
/// launch opened. `privatesync sync now`, `sync on` and `account start-fresh` run it on such a device.
///
/// CKSyncEngine runs in one process of an app at a time: here, every command is a process. A mirror holds an
/// exclusive lock (`flock`) on its folder beside the store (`CKSyncEngine/`) from its opening to its end, so that a
/// second process's mirror waits for the first (at most the process's lock wait: then it fails as busy, `folderBusy`),
/// and reads the bookkeeping the first left (the bookkeeping is one file written whole; two mirrors at once would
/// each write over the other's). What does not sync (adding, editing and deleting records; reading the status) takes
/// no such lock: the store's own transactions keep it consistent, and the status reads the bookkeeping's last whole
/// version (``MirrorEngineFacts``).
public final class MirroredApp: Sendable {
    /// The app.
    public let app: LaunchedApp
    /// The mirror of its user-created store.
    public let mirror: PartitionMirror
    /// Counts what a cycle moved, in front of the mirror; kept alive here (the engine holds its delegate weakly).
    let tally: MirrorCycleTally
    /// The lock on the mirror's folder, held while this mirror lives.
    let hold: FileLock

    /// The folder the mirror keeps its files in, beside the user-created store.
    ///
    /// - Parameter device: The device.
    /// - Returns: The folder's path.
    public static func folder(of device: SimulatedDevice) -> String {
        device.appGroup.applicationSupport + "/CKSyncEngine"
    }

    /// The mirror's bookkeeping file on a device.
    ///
    /// - Parameter device: The device.
    /// - Returns: The file's path.
    public static func bookkeepingPath(of device: SimulatedDevice) -> String {
        folder(of: device) + "/bookkeeping.json"
    }

    /// The most sends of one cycle on one engine: the first, one that creates the zone its saves found missing, and
    /// one with the records.
    static let sendsPerCycle = 3
    /// The most engines one cycle runs on: the mirror's at the start, and the ones it makes instead during the cycle.
    static let enginesPerCycle = 3

    /// Makes the mirror's folder if need be and locks it exclusively, waiting while another process holds it for at
    /// most the process's lock wait; then removes what a write of the bookkeeping killed before its rename left.
    ///
    /// Every writer of the bookkeeping file holds this lock, so under it no other write can be running, and a
    /// temporary file beside the bookkeeping is a killed process's: without the cleanup, every kill inside a
    /// bookkeeping write left one for good.
    ///
    /// - Parameter device: The device.
    /// - Returns: The held lock.
    /// - Throws: ``MirrorError`` `folderBusy` when another process held the folder past the wait; `folderUnusable`
    ///   when the folder cannot be made, locked or cleaned.
    private static func lockFolder(of device: SimulatedDevice) throws(MirrorError) -> FileLock {
        let folder = folder(of: device)
        let wait = LockWait.defaultMilliseconds
        let hold: FileLock
        do {
            try FileSystem.createDirectory(folder)
            hold = try FileLock.exclusive(folder, waitingAtMost: wait)
        } catch  where error.isLockHeld {
            throw MirrorError(
                .folderBusy,
                "another process's mirror of \(device.name) held its folder past the wait (\(wait) ms)",
                underlying: error)
        } catch {
            throw MirrorError(.folderUnusable, "cannot make or lock \(folder)", underlying: error)
        }
        do {
            try FileSystem.removeTemporaries(leftBy: bookkeepingPath(of: device))
        } catch {
            throw MirrorError(.folderUnusable, "cannot remove what a killed write left in \(folder)", underlying: error)
        }
        return hold
    }

    private init(app: LaunchedApp, mirror: PartitionMirror, tally: MirrorCycleTally, hold: FileLock) {
        self.app = app
        self.mirror = mirror
        self.tally = tally
        self.hold = hold
    }

    /// Opens the mirror of a launched app, waiting while another process's mirror of the device runs (at most the
    /// process's lock wait).
    ///
    /// - Parameter app: The app, launched or resumed (not a read-only view).
    /// - Returns: The app with its mirror, or `nil` when sync does not run on this launch (the switch is off, the
    ///   launch fell back to a local store) or the device's build runs the app's own engine.
    /// - Throws: ``MirrorError`` `folderBusy` when another process's mirror held its folder past the wait,
    ///   `folderUnusable` when the mirror's folder cannot be made or locked, `damagedBookkeeping` for a bookkeeping
    ///   file that cannot be read (left as it is).
    public static func open(_ app: LaunchedApp) throws(MirrorError) -> MirroredApp? {
        try open(app, holding: nil)
    }

    /// Locks the mirror's folder of a device ahead of a command that changes something before it opens the mirror
    /// (`sync on` flips the switch first), so that a busy folder fails the command before it changed anything.
    ///
    /// - Parameter device: The device.
    /// - Returns: The held lock, for ``open(_:holding:)``.
    /// - Throws: ``MirrorError`` `folderBusy` or `folderUnusable`, as ``open(_:)`` does.
    package static func holdFolder(of device: SimulatedDevice) throws(MirrorError) -> FileLock {
        try lockFolder(of: device)
    }

    /// Opens the mirror of a launched app under a lock of its folder already held (``holdFolder(of:)``), or taken
    /// now when `hold` is `nil`.
    ///
    /// - Parameters:
    ///   - app: The app, launched or resumed.
    ///   - hold: The folder's lock, held by this process; it is released with the mirror, or at once when the
    ///     mirror does not run.
    /// - Returns: The app with its mirror, or `nil`, as ``open(_:)`` says.
    /// - Throws: What ``open(_:)`` throws.
    package static func open(_ app: LaunchedApp, holding hold: FileLock?) throws(MirrorError) -> MirroredApp? {
        guard app.device.profile.build.syncEngine == .cksyncengine, let container = app.container else {
            hold?.unlock()
            return nil
        }
        let hold = if let hold { hold } else { try lockFolder(of: app.device) }
        let tally = MirrorCycleTally(isSyncWanted: { [device = app.device] in (try? device.syncPreference()) ?? false })
        let mirror = try PartitionMirror(
            store: app.stores.userCreated, database: PSDatabase(container: container),
            bookkeepingPath: bookkeepingPath(of: app.device), automaticallySync: false,
            durability: app.environment.durability, engineDelegate: tally,
            crashSwitch: app.environment.crashSwitch)
        tally.passOn(to: mirror)
        return MirroredApp(app: app, mirror: mirror, tally: tally, hold: hold)
    }

    /// The account the device's data belongs to, as its mirror's bookkeeping last says, for a simulator that asks
    /// what a page its cycle fetched was for.
    ///
    /// - Parameter device: The device.
    /// - Returns: The account's user record name, or `nil` when the data belongs to none yet or the file cannot be
    ///   read.
    package static func dataAccount(of device: SimulatedDevice) -> String? {
        bookkeeping(of: device)?.accountRecordName
    }

    /// The mirror's bookkeeping of a device as last written, whether sync runs on its launch or not, for a simulator
    /// that asks what the mirror knows while its status cannot say (the switch off).
    ///
    /// - Parameter device: The device.
    /// - Returns: The bookkeeping, or `nil` when the file cannot be read.
    package static func bookkeeping(of device: SimulatedDevice) -> MirrorBookkeeping? {
        try? PartitionMirror.readBookkeeping(at: bookkeepingPath(of: device))
    }

    /// Releases the lock on the mirror's folder now, as the end of its process would, rather than when this value
    /// goes: a simulator that kills an app instance while the instance's cycle is suspended inside a request ends
    /// the process that way. The caller makes sure nothing of this mirror writes after: its cycle has ended, or its
    /// crash switch is down (the process is gone).
    package func releaseFolder() {
        hold.unlock()
    }

    /// Deletes a record of the user-created store of a device whose build is CKSyncEngine's delegate, as the
    /// mirror's own ``PartitionMirror/delete(_:)`` does, whether sync runs or not: the record leaves the store with
    /// its deletion queued and, when the mirror's bookkeeping counts it among the records whose first save may have
    /// landed (``MirrorBookkeeping/firstSendUnanswered``, ``MirrorBookkeeping/untaggedMayBeOnServer``), a mark of it
    /// in the same transaction (`EngineState.deletionsUnrecorded`), which the bookkeeping file then takes in
    /// before the mark is cleared (`PartitionMirror.settleDeletionsUnrecorded()`; killed in between, the next
    /// mirror settles it before it makes its engine): a record made later under its name is a new one, which a
    /// fetched deletion of the old one leaves alone. Done under the mirror's folder lock, so that a mirror running
    /// in another process ends first.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - app: The app.
    /// - Returns: The record as it was.
    /// - Throws: `StoreError` for what the store refuses (`recordNotFound` among them); ``MirrorError``
    ///   `folderBusy`, `folderUnusable` or `damagedBookkeeping`: nothing is written then. ``MirrorError`` `bookkeepingNotWritten`
    ///   when the record is deleted and marked, and the bookkeeping could not take it in yet.
    @discardableResult
    public static func deleteRecord(_ name: String, of app: LaunchedApp) throws -> StoredRecord {
        let hold = try lockFolder(of: app.device)
        defer { hold.unlock() }
        // Read first: a bookkeeping file that cannot be read refuses the delete, which then changes nothing.
        let unrecorded = try PartitionMirror.readBookkeeping(at: bookkeepingPath(of: app.device)).mayBeOnServer(name)
        let record = try PartitionMirror.delete(name, from: app.stores.userCreated, marked: unrecorded)
        guard unrecorded else { return record }
        // Settled at once, so that marks never pile up while no mirror runs (a text value holds 64 KiB of names).
        do {
            try PartitionMirror.settleDeletionsUnrecorded(
                in: app.stores.userCreated, bookkeepingAt: bookkeepingPath(of: app.device),
                durability: app.environment.durability)
        } catch {
            throw MirrorError(
                .bookkeepingNotWritten,
                "\(name) was deleted, and the store marks it; the mirror's bookkeeping will hear of it at its next run",
                underlying: error)
        }
        return record
    }

    /// Adds a user-created record under a name the app chose, on a device whose build is CKSyncEngine's delegate, as
    /// the mirror's own ``PartitionMirror/insert(_:fields:name:)`` does, whether sync runs or not: a name of a record
    /// deleted here is marked in the insert's transaction as made anew (`EngineState.creationsNotLanded`), so that a
    /// deletion of the older record, fetched before the new one lands, leaves it alone. The mark is the store's
    /// alone: no lock on the mirror's folder is taken. The name is checked against both stores in the insert's step,
    /// as every chosen-name insert of the device is (`DeviceStores.insert(_:chosenName:fields:writtenUnder:alongside:)`).
    ///
    /// - Parameters:
    ///   - type: The record's type, of the user-created partition.
    ///   - name: Its name, checked as CloudKit checks record names; no record on the device may hold it.
    ///   - fields: Its fields.
    ///   - app: The app.
    /// - Returns: The record as stored (durably, with its pending change).
    /// - Throws: `StoreError`: `invalidName`, `nameInUse` for a name a record of either store holds, or what the
    ///   store refuses; nothing is written then.
    @discardableResult
    public static func addRecord(
        _ type: ModelType<UserCreated>, name: String, fields: [String: FieldValue], of app: LaunchedApp
    ) throws(StoreError) -> StoredRecord {
        if let problem = CloudKitNames.problem(withRecordName: name) {
            throw StoreError(.invalidName, "invalid record name: \(problem)")
        }
        if try app.find(name) != nil {
            throw StoreError(
                .nameInUse, "a record named \(CloudKitNames.quoted(name)) already exists on \(app.device.name)")
        }
        return try app.stores.insert(
            .userCreated(type), chosenName: name, fields: fields, writtenUnder: app.device.session.account,
            alongside: PartitionMirror.markIfMadeAgain)
    }

    /// One cycle, as a user's pull to refresh asks it of CKSyncEngine: a fetch, then a send (either half may be
    /// left out).
    ///
    /// - Parameters:
    ///   - fetching: Whether to fetch.
    ///   - sending: Whether to send.
    /// - Returns: What moved, and how the cycle ended: `succeeded`, or `retrying` with CloudKit's code of a request
    ///   that failed (the engine tries again at its next cycle); a write of the store or of the bookkeeping that
    ///   failed is named in `storeFailure`, with `diskFull` or `fileBusy` when it was one.
    public func sync(fetching: Bool = true, sending: Bool = true) async -> SyncReport {
        tally.reset()
        _ = await mirror.takeFetchedRecordProblems()
        let errorsBefore = await mirror.persistenceErrorsNoted
        var failure: PSError?
        do {
            try await runCycle(fetching: fetching, sending: sending)
        } catch let error as PSError {
            failure = error
        } catch {
            failure = PSError(.internalError)
        }
        var report = tally.report
        report.events += await mirror.takeFetchedRecordProblems()
        report.ran = true
        report.outcome = failure.map { .retrying($0.code) } ?? .succeeded
        // The failures of this cycle's writes (a fetched record the device could not take is not one: it stays on
        // the server, and the cycle finished).
        let noted = await mirror.persistenceErrorsNoted - errorsBefore
        let writeFailures = await mirror.persistenceErrors.suffix(noted).filter {
            $0.code == .store || $0.code == .bookkeepingNotWritten
        }
        if let first = writeFailures.first {
            report.storeFailure = first.description
            let waits = writeFailures.compactMap { EngineOutcome(storageFailure: $0) }
            report.outcome = waits.contains(.diskFull) ? .diskFull : waits.first ?? report.outcome
        }
        return report
    }

    /// The cycle's fetch and sends, each on the mirror's engine of the moment.
    ///
    /// The mirror makes a new engine when the data's account comes back, after a start afresh, and after a page the
    /// store could not write, and ignores the old one's events from then on: what the old one fetched or sent in
    /// this cycle counts for nothing. The half it ran is then run again on the new engine, a few times at most (a
    /// cycle driven to its end on the engine it began with said "fetched" while the mirror kept none of it, and a
    /// device signed back in stayed behind the server until a second command).
    ///
    /// - Parameters:
    ///   - fetching: Whether to fetch.
    ///   - sending: Whether to send.
    /// - Throws: What the engine's `fetchChanges` or `sendChanges` throws.
    private func runCycle(fetching: Bool, sending: Bool) async throws {
        var fetched = !fetching
        var rounds = 0
        while rounds < Self.enginesPerCycle {
            rounds += 1
            let engine = await mirror.syncEngine
            // The switch turned off meanwhile (`sync off` in another process): nothing more of this cycle runs.
            guard tally.isSyncWanted() else { return }
            if !fetched {
                try await engine.fetchChanges()
                guard await mirror.syncEngine === engine else { continue }
                fetched = true
            }
            // A send whose saves found the zone missing queues its creation, and the next creates it; the records
            // go up in the one after (a first sync, or after the user's deletion). CKSyncEngine's own scheduling
            // sends each at once: here, while a send moved the zone along, the next follows, so that a cycle ends
            // with what it could send sent.
            var sends = 0
            while sending && sends < Self.sendsPerCycle && tally.isSyncWanted() {
                let zoneStepsBefore = tally.zoneSteps
                do {
                    try await engine.sendChanges()
                } catch let error as PSError where error.code == .partialFailure {
                    // Items refused one by one: each went to the mirror in `sentRecordZoneChanges`.
                }
                sends += 1
                if tally.zoneSteps == zoneStepsBefore { break }
            }
            guard await mirror.syncEngine === engine else { continue }
            return
        }
    }

    /// The user turns sync on again after deleting the app's data from iCloud
    /// (``PartitionMirror/userTurnedSyncOn()``).
    ///
    /// - Returns: Whether sync was paused for the deletion and now uploads again.
    /// - Throws: ``MirrorError`` `store` when the records cannot be queued again; sync stays paused.
    @discardableResult
    public func userTurnedSyncOn() async throws(MirrorError) -> Bool {
        try await mirror.userTurnedSyncOn()
    }

    /// After another account signed in, the user chooses to sync with it
    /// (``PartitionMirror/startFreshForSignedInAccount()``).
    ///
    /// The engine hears of a switch when an operation begins (CKSyncEngine, at its launch): one that has not heard
    /// yet is made to, by a fetch, which fetches nothing into the store while sync is paused for the switch. The
    /// status already says paused, from the account the device reports (``MirrorEngineFacts``), and the user's
    /// choice answers that.
    ///
    /// - Returns: The archive and how many records it holds, or `nil` when there is nothing to start afresh from
    ///   (the data belongs to the account signed in, or to none, or no account is signed in).
    /// - Throws: ``MirrorError`` when the bookkeeping, the archive or the store cannot be written.
    @discardableResult
    public func startFreshForSignedInAccount() async throws(MirrorError) -> (path: String, records: Int)? {
        if let made = try await mirror.startFreshForSignedInAccount() { return made }
        let signedIn = app.device.session.account?.userRecordID.recordName
        let bookkeeping = await mirror.bookkeeping
        guard let signedIn, bookkeeping.accountRecordName != nil, bookkeeping.accountRecordName != signedIn,
            bookkeeping.engineAccount != signedIn
        else { return nil }
        _ = await sync(fetching: true, sending: false)
        return try await mirror.startFreshForSignedInAccount()
    }
}

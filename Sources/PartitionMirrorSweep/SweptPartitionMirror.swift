import DemoSchema
public import PartitionMirror
public import PrivateSync
public import PrivateSyncEngineTesting
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The demo app, syncing through ``PartitionMirror`` (the CKSyncEngine-shaped engine), made ready for a
/// ``DelegateSweep``: its two stores opened from the device's folder, the user's actions on them, and what the user
/// sees.
///
/// ```swift
/// let report = await SweptPartitionMirror.sweep().sweep(seeds: 0..<300)
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
///
/// The user writes journal entries (user-created: they sync) and measures baselines (local-only: they never leave
/// the device). An item of the sweep is a journal entry, shown as its `note`. The server's snapshot shows every
/// record of a type outside the user-created partition as an item no one wrote, which the sweep's history refuses:
/// a local-only record on the server fails the run.
public final class SweptPartitionMirror: SweptApp {
    /// The device's two stores.
    public let stores: DeviceStores
    /// The mirror of the user-created store.
    public let mirror: PartitionMirror
    /// The clock the user's edits are dated by: the sweep's, never the system's.
    let clock: ManualClock
    /// An object that fronts the mirror as the engine's delegate, kept alive here (the engine holds its delegate
    /// weakly).
    let front: (any PSSyncEngineDelegate)?
    /// The names of the entries the user deleted on this launch, which a later entry may be written under again.
    let deletedHere = Mutex<[String]>([])

    /// The name of the bookkeeping file in a device's folder.
    public static let bookkeepingName = "mirror.json"
    /// The container the user-created store mirrors to.
    static let container: ContainerIdentifier = {
        do {
            return try ContainerIdentifier("iCloud.com.example.privatesync.sweep")
        } catch {
            preconditionFailure("the sweep's container identifier is invalid: \(error)")
        }
    }()

    /// Launches the app on a device of a sweep: its stores and bookkeeping in the device's folder, its engine over
    /// the device's database and the sweep's scheduler.
    ///
    /// - Parameters:
    ///   - device: The device's launch.
    ///   - front: The engine's delegate when an object fronts the mirror; `nil` for the mirror itself.
    /// - Throws: What opening the stores or the bookkeeping throws (``StoreError``, ``MirrorError``).
    public init(device: SweepDevice, front: (any PSSyncEngineDelegate)? = nil) throws {
        let folder = device.folder.path
        // The sweep's crash point, asked before every commit of the stores and every write of the bookkeeping: to
        // die there, or to fail it as on a full disk.
        let crashPoint = device.crashPoint
        let crashSwitch = CrashSwitch(
            trippingWhen: { crashPoint.beforeDurableWrite() }, refusingWhen: { crashPoint.refusesDurableWrite() })
        stores = try DeviceStores.open(
            localOnly: StoreConfiguration(
                name: StoreConfiguration.localOnlyName, directory: folder, cloudKitDatabase: .none),
            userCreated: StoreConfiguration(
                name: StoreConfiguration.userCreatedName, directory: folder, cloudKitDatabase: .private(Self.container)),
            partition: .demoHealth, deviceID: device.name, clock: device.clock, names: UUIDRecordNames(),
            durability: .survivesProcessCrash, crashSwitch: crashSwitch)
        mirror = try PartitionMirror(
            store: stores.userCreated, database: device.database,
            bookkeepingPath: folder + "/" + Self.bookkeepingName, automaticallySync: device.automaticallySync,
            scheduler: device.scheduler, durability: .survivesProcessCrash, engineDelegate: front,
            crashSwitch: crashSwitch)
        clock = device.clock
        self.front = front
    }

    /// The engine the mirror syncs with now (it makes a new one after a sign-out).
    public var syncEngine: PSSyncEngine {
        get async { await mirror.syncEngine }
    }

    /// Each journal entry's note, by record name.
    ///
    /// - Returns: What the user sees.
    public func snapshot() async -> [String: String] {
        let records = (try? await shownRecords()) ?? []
        return Dictionary(records.map { ($0.name, Self.shown($0.fields)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The journal entries the user sees: those of the account the data belongs to, of the account signed in (an
    /// entry written while another account's data is here), and of none. Another account's entries the store keeps
    /// (written while it was signed in, before the data's account came back) are not shown, and never go up.
    ///
    /// - Returns: The records.
    /// - Throws: `StoreError` when the store cannot be read.
    func shownRecords() async throws -> [StoredRecord] {
        let bookkeeping = await mirror.bookkeeping
        let shown = Set([bookkeeping.accountRecordName, bookkeeping.engineAccount].compactMap { $0 })
        return try stores.userCreated.records().filter { record in
            record.origin.map { shown.contains($0.recordName) } ?? true
        }
    }

    /// Copies the two stores through SQLite (`VACUUM INTO`), the bookkeeping file and the archives, as they are this
    /// instant.
    ///
    /// - Parameters:
    ///   - folder: This launch's folder.
    ///   - next: The next launch's folder.
    /// - Throws: What a copy throws.
    public func preserve(_ folder: URL, into next: URL) throws {
        try FileManager.default.createDirectory(at: next, withIntermediateDirectories: true)
        try stores.userCreated.copy(to: next.path + "/" + StoreConfiguration.userCreatedName + ".store")
        try stores.localOnly.copy(to: next.path + "/" + StoreConfiguration.localOnlyName + ".store")
        let bookkeeping = folder.appending(path: Self.bookkeepingName)
        if FileManager.default.fileExists(atPath: bookkeeping.path) {
            try FileManager.default.copyItem(at: bookkeeping, to: next.appending(path: Self.bookkeepingName))
        }
        // The archives are SQLite files no connection is open to between two of the mirror's calls (a start afresh
        // or a restore opens, reads or writes, and closes each, with no suspension between): copied as files.
        let archives = URL(fileURLWithPath: mirror.archivesFolder)
        if FileManager.default.fileExists(atPath: archives.path) {
            try FileManager.default.copyItem(at: archives, to: next.appending(path: archives.lastPathComponent))
        }
    }

    /// The settings screen's status (``PartitionMirror/status(syncWanted:accountStatus:)``), in the sweep's terms. A
    /// store that cannot be read shows no honest status: it reads as a pause with a cause the sweep never sees hold,
    /// which fails the run.
    ///
    /// - Returns: The status.
    public func status() async -> SweptStatus? {
        do {
            return Self.swept(try await mirror.status())
        } catch {
            return .paused(.other)
        }
    }

    /// The mirror pauses after an app's deletion of its zone as after the user's, and uploads nothing until the user
    /// turns sync on again.
    public static var waitsForTheUserAfterAnAppsDeletion: Bool { true }

    /// The user turns sync on again after deleting the app's data in Settings
    /// (``PartitionMirror/userTurnedSyncOn()``).
    ///
    /// - Returns: Whether the mirror was paused for it and now uploads again.
    /// - Throws: ``MirrorError`` when the store cannot queue the records again.
    public func userTurnsSyncOnAgain() async throws -> Bool {
        try await mirror.userTurnedSyncOn()
    }

    /// The user chooses the account signed in over the data's (``PartitionMirror/startFreshForSignedInAccount()``):
    /// the data's account's records go into an archive beside the store.
    ///
    /// - Returns: Whether the mirror was paused for it and now syncs with the account signed in.
    /// - Throws: ``MirrorError`` when the archive cannot be written or the records cannot move.
    public func userStartsAfresh() async throws -> Bool {
        try await mirror.startFreshForSignedInAccount() != nil
    }

    /// A status of the app's model in the sweep's terms.
    ///
    /// - Parameter status: The status.
    /// - Returns: The same, as the sweep checks it.
    public static func swept(_ status: SyncStatus) -> SweptStatus {
        switch status.state {
        case .off: return .off
        case .on(.upToDate): return .on(.upToDate)
        case .on(.syncing): return .on(.syncing)
        case .on(.waiting(reason: .diskFull, _)): return .on(.waitingForRoom)
        case .on(.waiting): return .on(.waiting)
        case .on(.notYetSynced): return .on(.notYetSynced)
        case .paused(let reason):
            switch reason {
            case .noAccount: return .paused(.noAccount)
            case .accountRestricted, .accountTemporarilyUnavailable: return .paused(.accountUnavailable)
            case .quotaExceeded: return .paused(.quotaExceeded)
            case .userDeletedZone: return .paused(.userDeletedZone)
            case .accountChanged: return .paused(.accountChanged)
            case .missingEntitlement, .storeCreationFailed, .containerUnusable: return .paused(.other)
            }
        }
    }

    /// What the user sees of an account's records on the server: each user-created record's note, by record name;
    /// a record of any other type shows as an item no one wrote (`local-only on the server: …`).
    ///
    /// - Parameter records: The account's records.
    /// - Returns: The notes, by record name.
    public static func serverSnapshot(_ records: [PSRecord]) -> [String: String] {
        var shown: [String: String] = [:]
        for record in records {
            let name = record.recordID.recordName
            guard SyncPartition.demoHealth.partition(of: record.recordType) == .userCreated else {
                shown["local-only on the server: \(name)"] = record.recordType
                continue
            }
            shown[name] = Self.shown(record.containerRecord.fields)
        }
        return shown
    }

    /// An entry as the user sees it: its note.
    static func shown(_ fields: [String: FieldValue]) -> String {
        if case .string(let note)? = fields[noteKey] { return note }
        return ""
    }

    static let noteKey = "note"
    static let journal: ModelType<UserCreated> = {
        do {
            return try SyncPartition.demoHealth.userCreatedType("Journal")
        } catch {
            preconditionFailure("the demo schema has no Journal: \(error)")
        }
    }()
    static let baseline: ModelType<LocalOnly> = {
        do {
            return try SyncPartition.demoHealth.localOnlyType("Baseline")
        } catch {
            preconditionFailure("the demo schema has no Baseline: \(error)")
        }
    }()

    /// What the user does: write a journal entry (often; now and then under the name of one deleted here before),
    /// import several, edit one, delete one (a third of the time writing one again at once under its name), and
    /// measure a baseline, which stays on the device.
    public static let actions: [SweepAction<SweptPartitionMirror>] = [
        writeAction(reusingNames: true),
        SweepAction("import journal entries", weight: 1) { app, random in
            try await app.add(count: 2 + random.int(below: 6), &random)
        },
        SweepAction("edit a journal entry", weight: 4) { app, random in
            let records = try await app.shownRecords()
            // Half the time the entry edited last (here, or elsewhere and fetched): two devices editing one entry
            // is what makes conflicts.
            let latest = records.max { ($0.modifiedAt, $0.name) < ($1.modifiedAt, $1.name) }?.name
            let picked = random.chance(0.5) ? latest : random.element(of: records.map(\.name).sorted())
            guard let name = picked else { return [] }
            let note = "note-" + random.name()
            try await app.mirror.update(name, setting: [noteKey: .string(note)])
            return [SweepWrite(key: name, value: note)]
        },
        deleteAction(makingAgain: true),
        SweepAction("measure a baseline", weight: 2) { app, random in
            try app.stores.localOnly.insert(
                baseline,
                fields: [
                    "metric": .string("resting heart rate"), "value": .double(Double(50 + random.int(below: 40))),
                    "computedAt": .date(app.clock.now()), "windowDays": .int64(7),
                ], writtenUnder: nil, name: "baseline-" + random.name())
            return []
        },
    ]

    /// ``actions`` as they were before a deleted entry was ever written again under its name: the seeds a sweep found
    /// failing then replay the runs they were found in. (The chance of writing again is drawn from the action's own
    /// random numbers, so the two lists run alike up to the first entry written again.)
    public static let actionsBeforeNamesMadeAgain: [SweepAction<SweptPartitionMirror>] = actions.map { action in
        switch action.name {
        case deleteAction(makingAgain: false).name: deleteAction(makingAgain: false)
        case writeAction(reusingNames: false).name: writeAction(reusingNames: false)
        default: action
        }
    }

    /// The user writes a journal entry; when `reusingNames`, a quarter of the time (once an entry was deleted on this
    /// launch, and while sync is on) under the name of one deleted here before, whose deletion may have gone up since
    /// and may come back in a fetch: a new entry, which that deletion must leave alone.
    ///
    /// - Parameter reusingNames: Whether the user now and then writes under a name deleted here.
    /// - Returns: The action.
    static func writeAction(reusingNames: Bool) -> SweepAction<SweptPartitionMirror> {
        SweepAction("write a journal entry", weight: 4) { app, random in
            // Drawn only once a name was deleted here, so that a run is the one before up to the first delete.
            let deleted = app.deletedHere.withLock { $0 }
            if reusingNames, !deleted.isEmpty, random.chance(0.25), case .on? = await app.status(),
                let name = random.element(of: deleted), try app.stores.userCreated.record(named: name) == nil
            {
                app.deletedHere.withLock { $0.removeAll { $0 == name } }
                let note = "note-" + random.name()
                try await app.mirror.insert(
                    journal,
                    fields: ["date": .date(app.clock.now()), "body": .string("again"), "note": .string(note)],
                    name: name)
                return [SweepWrite(key: name, value: note)]
            }
            return try await app.add(count: 1, &random)
        }
    }

    /// The user deletes a journal entry and, when `makingAgain` and sync is on, a third of the time writes an entry
    /// again at once under its name (before any sync): a new entry under an old name, which a deletion of the old one fetched
    /// later, made elsewhere or here, must leave alone (issue 27: a first save whose answer was lost left the name
    /// among the records that may be on the server, and the new entry was taken for the old one).
    ///
    /// - Parameter makingAgain: Whether the user now and then writes the entry again.
    /// - Returns: The action.
    static func deleteAction(makingAgain: Bool) -> SweepAction<SweptPartitionMirror> {
        SweepAction("delete a journal entry", weight: 2) { app, random in
            let names = try await app.shownRecords().map(\.name).sorted()
            guard let name = random.element(of: names) else { return [] }
            try await app.mirror.delete(name)
            let deleted = SweepWrite(key: name, value: nil)
            // Only while the entries shown are the account signed in's: one written while another account's data is
            // here is that account's, and the store keeps one record per name (seen and left: docs/simulator.md).
            guard makingAgain, case .on? = await app.status(), random.chance(1.0 / 3) else {
                if makingAgain { app.deletedHere.withLock { $0.append(name) } }
                return [deleted]
            }
            let note = "note-" + random.name()
            do {
                try await app.mirror.insert(
                    journal,
                    fields: ["date": .date(app.clock.now()), "body": .string("again"), "note": .string(note)],
                    name: name)
            } catch {
                // The delete, its own transaction, went through.
                throw SweepActionInterrupted(writes: [deleted], underlying: error)
            }
            return [deleted, SweepWrite(key: name, value: note)]
        }
    }

    /// A sweep of the demo app, with ``actions`` and ``serverSnapshot(_:)``.
    ///
    /// - Parameters:
    ///   - configuration: How a run is made.
    ///   - front: Makes an object to front the mirror on each launch (a test's flawed delegate), given the mirror
    ///     once it exists; `nil` for the mirror alone.
    ///   - actions: What the user does; ``actions`` by default.
    /// - Returns: The sweep.
    public static func sweep(
        configuration: DelegateSweep<SweptPartitionMirror>.Configuration = .init(),
        front: (@Sendable () -> any DelegateFront)? = nil,
        actions: [SweepAction<SweptPartitionMirror>] = actions
    ) -> DelegateSweep<SweptPartitionMirror> {
        DelegateSweep(
            configuration: configuration,
            makeApp: { device in
                guard let front = front?() else { return try SweptPartitionMirror(device: device) }
                let app = try SweptPartitionMirror(device: device, front: front)
                front.attach(app.mirror)
                return app
            },
            actions: actions, serverSnapshot: serverSnapshot)
    }

    private func add(count: Int, _ random: inout SweepRandom) async throws -> [SweepWrite] {
        var writes: [SweepWrite] = []
        for _ in 0..<count {
            let name = "entry-" + random.name()
            let note = "note-" + random.name()
            do {
                try await mirror.insert(
                    Self.journal,
                    fields: ["date": .date(clock.now()), "body": .string("today"), "note": .string(note)],
                    name: name)
            } catch {
                // Each entry is its own transaction: those before went through.
                let done = writes
                throw done.isEmpty ? error : SweepActionInterrupted(writes: done, underlying: error)
            }
            writes.append(SweepWrite(key: name, value: note))
        }
        return writes
    }
}

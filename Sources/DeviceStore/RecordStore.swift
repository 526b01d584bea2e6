public import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncSQLite
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One store of a device: a SQLite file holding the records of one partition, as a SwiftData store holds the
/// models of one configuration.
///
/// A store of partition `Kind` accepts only ``ModelType``s of `Kind`, so a local-only record cannot be written into
/// the user-created store, nor the reverse; the file itself records its partition and refuses to open as the other.
/// In the user-created store, every write queues its pending change (for sync) in the same transaction as the
/// record, so no crash can separate them. A write that returns has been committed durably.
public final class RecordStore<Kind: PartitionKind>: Sendable {
    /// The store file format: `application_id` 0x50535331 ("PSS1").
    static var format: DatabaseFormat {
        DatabaseFormat(
            applicationID: 0x5053_5331, version: 1, name: "PrivateSync device store",
            schema: [
                "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value ANY NOT NULL) WITHOUT ROWID",
                // The large columns last: a column stored after a value that overflows its page is reached only by
                // reading the overflow chain, so the dates, owner and server fields that scans read come first (the
                // range check at every open, listings in date order, the sync's owner filters) and the fields (up to
                // 1 MB) at the end: the simulator, whose pasted texts near 1 MB, ran 7% faster (`make bench`,
                // `simulated_speedup`). Stores made before keep their order, which every query reads alike, as it
                // names its columns.
                """
                CREATE TABLE records (
                    record_name TEXT PRIMARY KEY, record_type TEXT NOT NULL, origin_user TEXT,
                    created_at REAL NOT NULL, modified_at REAL NOT NULL, server_change_tag TEXT,
                    server_created_at REAL, server_modified_at REAL, server_creator TEXT,
                    server_last_modifier TEXT, field_versions TEXT NOT NULL, fields TEXT NOT NULL)
                """,
                """
                CREATE TABLE pending_changes (
                    record_name TEXT PRIMARY KEY, record_type TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('save', 'delete')), queued_seq INTEGER NOT NULL,
                    revision INTEGER NOT NULL DEFAULT 1)
                """,
                "CREATE INDEX pending_changes_in_order ON pending_changes (queued_seq)",
                "CREATE TABLE sync_state (key TEXT PRIMARY KEY, value ANY) WITHOUT ROWID",
                "CREATE TABLE refetch_seen (record_name TEXT PRIMARY KEY) WITHOUT ROWID",
                "INSERT INTO sync_state (key, value) VALUES ('pending_revision', 1)",
                // Every insert or revision change of a pending change advances the counter, so the next one is new.
                """
                CREATE TRIGGER pending_revision_after_insert AFTER INSERT ON pending_changes BEGIN
                    UPDATE sync_state SET value = value + 1 WHERE key = 'pending_revision';
                END
                """,
                """
                CREATE TRIGGER pending_revision_after_update AFTER UPDATE OF revision ON pending_changes BEGIN
                    UPDATE sync_state SET value = value + 1 WHERE key = 'pending_revision';
                END
                """,
            ],
            // 8 KiB pages: a record and its field versions take some 700 bytes, and a pull writes every page twice
            // (the log, then the checkpoint), a write call each; twice the page halves the calls (`make bench`,
            // `initial_sync_ratio`: +8%), while a single edit's commit stays small (16 KiB gave +16% there but cost
            // the simulator's small writes 8%).
            pageSize: 8192)
    }

    /// The store's configuration.
    public let configuration: StoreConfiguration
    /// The schema and its partition.
    public let partition: SyncPartition
    /// The device's identifier, stamped on every field written here.
    public let deviceID: String
    let database: SerializedConnection
    let clock: any WallClock
    let names: any RecordNameSource
    let crashSwitch: CrashSwitch?
    /// The lease on the App Group folder the store lives in, when it belongs to a device's app: held as long as the
    /// store (and so its connection) lives, so that no reinstall deletes the file under it.
    let lease: AppGroupLease?
    /// What ``memoizedRead(_:_:)`` computed last under each name, with the content version it was read at.
    private let readMemos = Mutex<[String: (version: ContentVersion, value: any Sendable)]>([:])

    /// The store file.
    public var path: String { configuration.path }

    /// Opens (or creates) a store.
    ///
    /// A missing folder is created for a local configuration, as Core Data quietly recovers; for a
    /// CloudKit-mirrored one it is the error Core Data raised on Apple's stack (``CocoaStyleError``, 512), and
    /// nothing is created.
    ///
    /// - Parameters:
    ///   - configuration: Name, folder, and local or cloud.
    ///   - partition: The schema and its partition.
    ///   - deviceID: The device's identifier.
    ///   - clock: Where write times come from.
    ///   - names: Where new record names come from.
    ///   - durability: How much a commit survives.
    ///   - crashSwitch: A simulation's switch; when it is down, nothing more commits.
    ///   - verifyIntegrity: Whether to check every page of an existing file first (`PRAGMA integrity_check`), so that a
    ///     damaged page anywhere, or an index that lost rows, is refused before anything is read or written.
    ///   - verificationMemo: Where checked states are remembered, to check a file once per change rather than at
    ///     every opening; `nil` checks at every opening.
    ///   - readOnly: Whether only to read (`sync status`, `record list`, `inspect`): nothing is created or written,
    ///     and a missing store reads as an empty one.
    ///   - lease: The device's lease on its App Group folder, for a store of a device's app: kept as long as the store.
    /// - Returns: The open store.
    /// - Throws: ``StoreError``: `cannotCreateStore` for a cloud store without its folder, `damagedFile` for a
    ///   damaged or foreign file (left unchanged), `storage` for anything else SQLite reports.
    public static func open(
        _ configuration: StoreConfiguration, partition: SyncPartition, deviceID: String,
        clock: any WallClock = SystemClock(), names: any RecordNameSource = UUIDRecordNames(),
        durability: Durability = .survivesPowerLoss, crashSwitch: CrashSwitch? = nil, verifyIntegrity: Bool = false,
        verificationMemo: VerificationMemo? = nil, readOnly: Bool = false, lease: AppGroupLease? = nil
    ) throws(StoreError) -> RecordStore {
        if readOnly && !FileSystem.exists(configuration.path) {
            // Nothing to read: an empty store, in memory, so that a read creates nothing on disk.
            do {
                let empty = try DatabaseFile.openInMemory(format: format)
                return RecordStore(
                    configuration: configuration, partition: partition, deviceID: deviceID,
                    database: SerializedConnection(empty), clock: clock, names: names, crashSwitch: crashSwitch,
                    lease: lease)
            } catch {
                throw StoreError.from(error, store: configuration.path)
            }
        }
        if !readOnly && !FileSystem.isDirectory(configuration.directory) {
            if configuration.isCloud {
                let error = CocoaStyleError.failedToCreateFile(configuration.path)
                throw StoreError(.cannotCreateStore, underlying: error)
            }
            do {
                try FileSystem.createDirectory(configuration.directory, permissions: 0o700)
            } catch {
                throw StoreError(.storage, "cannot create the store folder", underlying: error)
            }
        }
        do {
            let connection = try DatabaseFile.open(
                at: configuration.path, format: format, create: !readOnly, durability: durability, readOnly: readOnly,
                verifyIntegrity: verifyIntegrity, verificationMemo: verificationMemo)
            // Every value the package computes with is checked before anything is read or written: once per
            // change of the file where checks are remembered (see `VerificationMemo`), as its pages are. The check
            // and the partition's read share one transaction, so they see one state of the file (and take its locks
            // once, not once a statement).
            let memoState = verificationMemo.flatMap { _ in
                VerificationMemo.state(of: configuration.path, through: connection)
            }
            let checkedBefore =
                if let verificationMemo, let memoState {
                    verificationMemo.isVerified(configuration.path, memoState, kind: StoreStateCheck.memoKind)
                } else { false }
            let checkStart = VerificationMemo.coarseNow()
            try connection.transaction(readOnly ? .deferred : .immediate) {
                if !checkedBefore, let problem = try StoreStateCheck.firstProblem(connection) {
                    throw StoreError(
                        .damagedFile, "\(configuration.path) is damaged: \(problem); it was left unchanged")
                }
                let stored = try connection.scalarText(literal: "SELECT value FROM store_meta WHERE key = 'partition'")
                if stored == nil && !readOnly {
                    try connection.run(
                        literal: "INSERT INTO store_meta (key, value) VALUES ('partition', ?)",
                        .text(Kind.partition.rawValue))
                } else if let stored, stored != Kind.partition.rawValue {
                    throw StoreError(
                        .damagedFile,
                        "\(configuration.path) holds the \(stored) store, not the \(Kind.partition) store; "
                            + "it was left unchanged")
                }
            }
            // Remembered only when nothing changed the file meanwhile (a new store's partition, written just now,
            // is checked at its next opening).
            if !checkedBefore, let verificationMemo, let memoState,
                VerificationMemo.state(of: configuration.path, through: connection) == memoState
            {
                verificationMemo.record(
                    configuration.path, memoState, kind: StoreStateCheck.memoKind, checkStart: checkStart)
            }
            return RecordStore(
                configuration: configuration, partition: partition, deviceID: deviceID,
                database: SerializedConnection(connection),
                clock: clock, names: names, crashSwitch: crashSwitch, lease: lease)
        } catch {
            throw StoreError.from(error, store: configuration.path)
        }
    }

    private init(
        configuration: StoreConfiguration, partition: SyncPartition, deviceID: String, database: SerializedConnection,
        clock: any WallClock, names: any RecordNameSource, crashSwitch: CrashSwitch?, lease: AppGroupLease?
    ) {
        self.configuration = configuration
        self.partition = partition
        self.deviceID = deviceID
        self.database = database
        self.clock = clock
        self.names = names
        self.crashSwitch = crashSwitch
        self.lease = lease
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction; it commits only while the process is alive.
    func write<T: Sendable>(_ body: (Connection) throws -> T) throws(StoreError) -> T {
        if crashSwitch?.isDown == true { throw crashed }
        let result = database.withConnection { connection -> Result<T, any Error> in
            Result {
                try connection.transaction(.immediate) {
                    let value = try body(connection)
                    // A crash at any point before COMMIT loses the transaction, as a killed process would.
                    if self.crashSwitch?.beforeCommit() == true { throw self.crashed }
                    if self.crashSwitch?.refusesWrite() == true { throw self.diskFull }
                    return value
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw StoreError.from(error, store: path)
        }
    }

    /// Runs `body` on a consistent snapshot.
    func read<T: Sendable>(_ body: (Connection) throws -> T) throws(StoreError) -> T {
        let result = database.withConnection { connection -> Result<T, any Error> in
            Result { try connection.transaction(.deferred) { try body(connection) } }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw StoreError.from(error, store: path)
        }
    }

    /// Runs `body` on a consistent snapshot, as ``read(_:)`` does, unless the store's content is the same as when it
    /// last ran under `name` (``Connection/contentVersion()``: nothing committed since, by this store's connection or
    /// any other): then what it returned then. For small values that depend on the store's content alone (the
    /// engine's state, which every status reads), never on a clock or anything outside the file.
    ///
    /// A value is always computed in a transaction of its own, never inside a write (the connection's lock is held
    /// throughout, and every write commits or rolls back before releasing it), so it never holds uncommitted work.
    func memoizedRead<T: Sendable>(_ name: String, _ body: (Connection) throws -> T) throws(StoreError) -> T {
        try read { connection in
            let version = try connection.contentVersion()
            if let memo = readMemos.withLock({ $0[name] }), memo.version == version, let value = memo.value as? T {
                return value
            }
            let value = try body(connection)
            readMemos.withLock { $0[name] = (version, value) }
            return value
        }
    }

    private var crashed: StoreError {
        StoreError(.processCrashed, "the process crashed (simulated); \(path) was not written")
    }

    /// A write failed as on a full disk (a simulation's; ``CrashSwitch/refusesWrite()``).
    private var diskFull: StoreError {
        StoreError(
            .storage, "the disk is full (simulated); \(path) was not written",
            underlying: FileSystemError.diskFull(writing: path))
    }
}

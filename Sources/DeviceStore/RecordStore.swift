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

    // MARK: Writing

    /// Inserts a new record.
    ///
    /// - Parameters:
    ///   - type: The record's type, of this store's partition.
    ///   - fields: Its fields; every required field of the type must be present.
    ///   - account: The iCloud account signed in on the device, if any.
    ///   - name: The record's name, as an app that names its records chooses it; `nil` takes the next name from
    ///     the store's name source.
    /// - Returns: The record as stored, with its name.
    /// - Throws: ``StoreError`` naming the field or value that is wrong, `invalidName` for a name CloudKit would
    ///   refuse, `nameInUse` for a name a record of this store already has, or the storage failure.
    @discardableResult
    public func insert(
        _ type: ModelType<Kind>, fields: [String: FieldValue], writtenUnder account: AccountID?, name: String? = nil
    )
        throws(StoreError) -> StoredRecord
    {
        let record = try newRecord(type, fields: fields, writtenUnder: account, name: name)
        try write { connection in
            // A chosen name may be taken; checked in the inserting transaction, so no other process slips in.
            if name != nil, try Self.holdsRecord(named: record.name, connection) {
                throw StoreError(
                    .nameInUse, "a record named \(CloudKitNames.quoted(record.name)) already exists on this device")
            }
            try Self.insertRow(record, connection)
            try self.queue(.save, name: record.name, type: record.type, connection)
        }
        return record
    }

    /// The record ``insert(_:fields:writtenUnder:name:)`` writes: its name checked, its fields validated, its times
    /// and versions now.
    ///
    /// - Throws: ``StoreError`` naming what is wrong, as `insert` documents.
    func newRecord(
        _ type: ModelType<Kind>, fields: [String: FieldValue], writtenUnder account: AccountID?, name: String?
    ) throws(StoreError) -> StoredRecord {
        if let name, let problem = CloudKitNames.problem(withRecordName: name) {
            throw StoreError(.invalidName, "invalid record name: \(problem)")
        }
        try validate(fields, of: type.schema)
        if let missing = type.schema.fields.first(where: { !$0.isOptional && fields[$0.name] == nil }) {
            throw StoreError(.missingField, "a \(type.name) needs a value for \(missing.name) (\(missing.type.name))")
        }
        let now = clock.now()
        let version = FieldVersion(time: now.timeIntervalSinceReferenceDate, device: deviceID)
        let record = StoredRecord(
            name: name ?? names.nextName(), type: type.name, fields: fields,
            fieldVersions: FieldVersions(fields.mapValues { _ in version }), origin: account?.userRecordID,
            createdAt: now,
            modifiedAt: now)
        try checkSize(record)
        return record
    }

    /// Changes fields of an existing record; `nil` clears a field.
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - changes: The fields to set or clear.
    /// - Returns: The record as stored now.
    /// - Throws: ``StoreError``: `recordNotFound` when this store has no such record, or what is wrong with a value.
    @discardableResult
    public func update(_ name: String, setting changes: [String: FieldValue?]) throws(StoreError) -> StoredRecord {
        let now = clock.now()
        return try write { connection in
            guard var record = try Self.record(named: name, connection) else {
                throw StoreError(.recordNotFound, "no record named \(name) in the \(Kind.partition) store")
            }
            guard let schema = self.partition.schema.recordType(named: record.type) else {
                throw StoreError(
                    .unknownType, "record \(name) has type \(record.type), which the schema no longer declares")
            }
            try self.validate(changes.compactMapValues { $0 }, of: schema)
            for (key, value) in changes {
                if value == nil, schema.field(named: key)?.isOptional == false {
                    throw StoreError(.missingField, "\(key) is required for a \(record.type); it cannot be cleared")
                }
                if value == nil, schema.field(named: key) == nil {
                    throw StoreError(.unknownField, "a \(record.type) has no field \(key)")
                }
                record.fields[key] = value ?? nil
                record.fieldVersions[key] = FieldVersion.edit(
                    at: now.timeIntervalSinceReferenceDate, by: self.deviceID, superseding: record.fieldVersions[key])
            }
            record.modifiedAt = record.fieldVersions.latest.map { Date(timeIntervalSinceReferenceDate: $0) } ?? now
            try self.checkSize(record)
            try Self.checkStorable(record)
            // The fields encoded straight into the memory SQLite binds (`bindFields`): a pasted text makes them a
            // megabyte, which a String would validate and copy once more, and an array then SQLite copy again.
            let statement = try connection.cachedStatement(
                literal: "UPDATE records SET fields = ?, field_versions = ?, modified_at = ? WHERE record_name = ?")
            try statement.bindFields(record.fields, at: 1)
            try statement.bindText(record.fieldVersions.encodedBytes, at: 2)
            try statement.bind(record.modifiedAt.timeIntervalSinceReferenceDate, at: 3)
            try statement.bind(name, at: 4)
            try statement.run()
            try self.queue(.save, name: name, type: record.type, connection)
            return record
        }
    }

    /// Deletes a record.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: The record as it was.
    /// - Throws: ``StoreError`` `recordNotFound` when this store has no such record.
    @discardableResult
    public func delete(_ name: String) throws(StoreError) -> StoredRecord {
        try write { connection in
            guard let record = try Self.record(named: name, connection) else {
                throw StoreError(.recordNotFound, "no record named \(name) in the \(Kind.partition) store")
            }
            try connection.run(literal: "DELETE FROM records WHERE record_name = ?", .text(name))
            try self.queue(.delete, name: name, type: record.type, connection)
            return record
        }
    }

    // MARK: Reading

    /// The record of that name, or `nil`.
    public func record(named name: String) throws(StoreError) -> StoredRecord? {
        try read { connection in try Self.record(named: name, connection) }
    }

    /// Whether the store holds a record of that name, read without decoding its fields (up to 1 MB of JSON), so that
    /// finding which store holds a record costs an index lookup.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: Whether a record of that name is here.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func containsRecord(named name: String) throws(StoreError) -> Bool {
        try read { connection in try Self.holdsRecord(named: name, connection) }
    }

    /// Every record, or every record of one type, ordered by creation then name.
    public func records(ofType type: String? = nil) throws(StoreError) -> [StoredRecord] {
        try read { connection in
            let columns = Self.recordColumns
            if let type {
                return try connection.query(
                    "SELECT \(columns) FROM records WHERE record_type = ? ORDER BY created_at, record_name",
                    .text(type),
                    decoding: Self.storedRecord)
            }
            return try connection.query(
                "SELECT \(columns) FROM records ORDER BY created_at, record_name", decoding: Self.storedRecord)
        }
    }

    /// How many records of each type the store holds.
    public func countsByType() throws(StoreError) -> [String: Int] {
        try read { connection in
            Dictionary(
                uniqueKeysWithValues: try connection.query(
                    literal: "SELECT record_type, count(*) FROM records GROUP BY record_type"
                ) { ($0.text(0), $0.int(1)) })
        }
    }

    /// The names of every record in the store (read again only once something was committed to it: the simulator
    /// checks them after every step).
    public func recordNames() throws(StoreError) -> Set<String> {
        try memoizedRead("recordNames") { connection in
            Set(try connection.query(literal: "SELECT record_name FROM records") { $0.text(0) })
        }
    }

    /// Every record's name and the account it was written under, in the order of ``records(ofType:)``, without
    /// reading its fields (read again only once something was committed to the store).
    public func origins() throws(StoreError) -> [RecordOrigin] {
        try memoizedRead("origins") { connection in
            try connection.query(
                literal: "SELECT record_name, origin_user FROM records ORDER BY created_at, record_name"
            ) { row in
                RecordOrigin(name: row.text(0), origin: row.optionalText(1).map { UserRecordID(recordName: $0) })
            }
        }
    }

    /// How many records the store holds.

    public func count() throws(StoreError) -> Int {
        try read { connection in Int(try connection.scalarInt(literal: "SELECT count(*) FROM records") ?? 0) }
    }

    // MARK: Rows

    static var recordColumns: String {
        "record_name, record_type, fields, field_versions, origin_user, created_at, modified_at"
    }

    /// The record of a row of ``recordColumns``.
    ///
    /// - Throws: ``StoreError`` `damagedFile`, naming the file and the record, for stored fields or field versions
    ///   that do not decode (the fields' `FieldsDecodingError` as its cause).
    static func storedRecord(_ row: Statement) throws(StoreError) -> StoredRecord {
        let name = row.text(0)
        let fields: [String: FieldValue]
        do {
            fields = try row.withBytes(2) { bytes throws(FieldsDecodingError) in try FieldsJSON.decode(bytes) }
        } catch {
            throw StoreError(
                .damagedFile, "\(row.path) is damaged (record \(name) has unreadable fields; it was left unchanged)",
                underlying: error)
        }
        guard let versions = FieldVersions(encoded: row.text(3)) else {
            throw StoreError(
                .damagedFile,
                "\(row.path) is damaged (record \(name) has unreadable field versions); it was left unchanged")
        }
        return StoredRecord(
            name: name, type: row.text(1), fields: fields, fieldVersions: versions,
            origin: row.optionalText(4).map { UserRecordID(recordName: $0) },
            createdAt: Date(timeIntervalSinceReferenceDate: row.double(5)),
            modifiedAt: Date(timeIntervalSinceReferenceDate: row.double(6)))
    }

    static func record(named name: String, _ connection: Connection) throws -> StoredRecord? {
        // The columns of `recordColumns`, in a literal: a statement run for every record a sync touches.
        try connection.query(
            literal: """
                SELECT record_name, record_type, fields, field_versions, origin_user, created_at, modified_at
                FROM records WHERE record_name = ?
                """, .text(name), decoding: storedRecord
        )
        .first
    }

    /// Whether the store open on `connection` holds a record of that name (an index lookup; no field is read).
    static func holdsRecord(named name: String, _ connection: Connection) throws(SQLiteError) -> Bool {
        try connection.scalarInt(literal: "SELECT 1 FROM records WHERE record_name = ?", .text(name)) != nil
    }

    /// Refuses to write a record its store's next opening would refuse, or a later read could not compute with
    /// (``StoredRecord/storageProblem(serverFields:)``): no write ever makes a store unopenable.
    ///
    /// - Throws: ``StoreError`` `invalidValue` naming the record and what is wrong.
    static func checkStorable(_ record: StoredRecord, serverFields: SystemFields? = nil) throws(StoreError) {
        if let problem = record.storageProblem(serverFields: serverFields) {
            throw StoreError(
                .invalidValue, "the record \(CloudKitNames.quoted(record.name)) cannot be stored: \(problem)")
        }
    }

    static func insertRow(_ record: StoredRecord, _ connection: Connection) throws {
        try checkStorable(record)
        let insert = try connection.cachedStatement(
            literal: """
                INSERT INTO records (record_name, record_type, fields, field_versions, origin_user, created_at,
                    modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        try bindRecordColumns(record, to: insert)
        try insert.run()
    }

    /// Binds a record's own columns to parameters 1 to 7 of `statement`, in the order every statement writing a
    /// row names them: name, type, fields, field versions, owner, creation and modification times.
    static func bindRecordColumns(_ record: StoredRecord, to statement: Statement) throws {
        try statement.bind(record.name, at: 1)
        try statement.bind(record.type, at: 2)
        try statement.bindFields(record.fields, at: 3)
        try statement.bindText(record.fieldVersions.encodedBytes, at: 4)
        try statement.bind(record.origin?.recordName, at: 5)
        try statement.bind(record.createdAt.timeIntervalSinceReferenceDate, at: 6)
        try statement.bind(record.modifiedAt.timeIntervalSinceReferenceDate, at: 7)
    }

    /// Queues a pending change in the user-created store (the local-only store has nothing to send).
    ///
    /// Changes collapse as CKSyncEngine's do: one entry per record, keeping its place in the queue, with the
    /// latest kind (a save then a delete sends the delete; a delete then a save sends the save). Every queueing
    /// takes a new revision from a counter that only grows, so a send that read an older revision never removes a
    /// newer change, even across processes.
    func queue(_ kind: PendingChangeKind, name: String, type: String, _ connection: Connection) throws {
        guard Kind.partition == .userCreated else { return }
        try Self.queue(kind, name: name, type: type, connection)
    }

    static func queue(_ kind: PendingChangeKind, name: String, type: String, _ connection: Connection) throws {
        // `nextRevision`, spelt out in a literal.
        try connection.run(
            literal: """
                INSERT INTO pending_changes (record_name, record_type, kind, queued_seq, revision)
                VALUES (?1, ?2, ?3, COALESCE((SELECT max(queued_seq) FROM pending_changes), 0) + 1,
                    (SELECT value FROM sync_state WHERE key = 'pending_revision'))
                ON CONFLICT (record_name) DO UPDATE SET kind = excluded.kind,
                    revision = (SELECT value FROM sync_state WHERE key = 'pending_revision')
                """, .text(name), .text(type), .text(kind.rawValue))
    }

    /// A SQL expression for a new revision: one more than any revision ever handed out in this store.
    ///
    /// The counter lives in `sync_state` (key `pending_revision`); the subquery both reads and, through the
    /// trigger below, advances it within the same statement's transaction.
    static var nextRevision: String {
        "(SELECT value FROM sync_state WHERE key = 'pending_revision')"
    }

    // MARK: Validation

    func validate(_ fields: [String: FieldValue], of type: RecordTypeSchema) throws(StoreError) {
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let field = type.field(named: key) else {
                let known = type.fields.map(\.name).joined(separator: ", ")
                throw StoreError(
                    .unknownField, "a \(type.name) has no field \(CloudKitNames.quoted(key)) (its fields: \(known))")
            }
            guard field.type.accepts(value) else {
                throw StoreError(
                    .wrongFieldType,
                    "\(type.name).\(key) holds \(field.type.name) values, not \(value.type?.name ?? "an empty list")")
            }
            if let problem = value.problem {
                throw StoreError(.invalidValue, "\(type.name).\(key): \(problem)")
            }
        }
    }

    /// Refuses a record that could never sync: CloudKit's 1 MB per record, measured as it would be sent.
    func checkSize(_ record: StoredRecord) throws(StoreError) {
        let size = record.encodedSize
        if size > CloudLimits.cloudKit.maximumRecordBytes {
            throw StoreError(
                .recordTooLarge,
                "the \(record.type) would be \(size) bytes encoded; CloudKit allows \(CloudLimits.cloudKit.maximumRecordBytes) per record"
            )
        }
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
}

/// What a change waiting to be sent does to its record (the `kind` column of `pending_changes`).
public enum PendingChangeKind: String, Sendable, Hashable {
    /// The record was created or changed: send it.
    case save
    /// The record was deleted: send its deletion.
    case delete
}

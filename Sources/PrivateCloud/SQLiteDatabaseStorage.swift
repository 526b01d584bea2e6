import PrivateSyncSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One account's private database in one SQLite file: the storage behind ``FileContainer``.
///
/// The tables are documented in `docs/container.md`. Dates are seconds since 2001-01-01 (Apple's reference date),
/// stored as REAL, so they read back exactly. Several processes may use the same file: writes take SQLite's write
/// lock at once (`BEGIN IMMEDIATE`) and wait for it up to the connection's busy timeout.
final class SQLiteDatabaseStorage: DatabaseStorage {
    /// The container database format: `application_id` 0x50534331 ("PSC1").
    ///
    /// Version 2 lets a zone tombstone's reason be `encryptedDataReset`. A version-1 file is read as it is, and
    /// upgraded (its `zone_tombstones` rebuilt, in the same transaction) only when it first records that reason,
    /// so files that never meet an encrypted-data reset stay readable by earlier builds.
    static let format = DatabaseFormat(
        applicationID: 0x5053_4331, version: 2, name: "PrivateSync container database",
        schema: [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value ANY NOT NULL) WITHOUT ROWID",
            """
            CREATE TABLE zones (
                zone_name TEXT PRIMARY KEY, incarnation INTEGER NOT NULL, capabilities INTEGER NOT NULL,
                change_seq INTEGER NOT NULL, created_at REAL NOT NULL) WITHOUT ROWID
            """,
            """
            CREATE TABLE zone_tombstones (
                change_seq INTEGER PRIMARY KEY, zone_name TEXT NOT NULL, incarnation INTEGER NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('deleted', 'purged', 'encryptedDataReset')))
            """,
            "CREATE INDEX zone_tombstones_by_name ON zone_tombstones (zone_name, change_seq)",
            """
            CREATE TABLE records (
                zone_name TEXT NOT NULL, record_name TEXT NOT NULL, record_type TEXT NOT NULL, fields TEXT NOT NULL,
                change_tag TEXT NOT NULL, change_seq INTEGER NOT NULL, created_at REAL NOT NULL,
                modified_at REAL NOT NULL, creator TEXT NOT NULL, last_modifier TEXT NOT NULL,
                PRIMARY KEY (zone_name, record_name))
            """,
            "CREATE INDEX records_by_change ON records (zone_name, change_seq)",
            """
            CREATE TABLE record_tombstones (
                zone_name TEXT NOT NULL, record_name TEXT NOT NULL, record_type TEXT NOT NULL,
                change_seq INTEGER NOT NULL, deleted_at REAL NOT NULL, PRIMARY KEY (zone_name, record_name))
            """,
            "CREATE INDEX record_tombstones_by_change ON record_tombstones (zone_name, change_seq)",
            """
            CREATE TABLE record_type_fields (
                record_type TEXT NOT NULL, field_name TEXT NOT NULL, field_type TEXT NOT NULL,
                PRIMARY KEY (record_type, field_name)) WITHOUT ROWID
            """,
            "INSERT INTO meta (key, value) VALUES ('next_change_seq', 1)",
            """
            INSERT INTO zones (zone_name, incarnation, capabilities, change_seq, created_at)
            VALUES ('_defaultZone', 0, 0, 0, 0)
            """,
        ])

    let connection: Connection
    var location: String { connection.path }
    private var cachedDatabaseID: String?
    /// Whether each zone holds a tombstone, as far as the current write transaction knows: a record inserted in a
    /// zone without one need not forget one. Saves a statement per new record on the common path (`make bench`,
    /// `container_save_ratio`).
    private var zoneHasTombstones: [String: Bool] = [:]

    /// Opens (or creates) the database of `account` in `containerID`.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - account: The account the file belongs to, recorded in a new file.
    ///   - containerID: The container the file belongs to, recorded in a new file.
    ///   - clock: Used for the creation date recorded in a new file.
    ///   - durability: How much a commit survives.
    ///   - verifyIntegrity: Whether to check every page of an existing file first.
    ///   - verificationMemo: Where checked states are remembered, to check a file once per change.
    /// - Throws: ``DatabaseFileError`` for a missing, damaged or foreign file; such a file is left unchanged.
    init(
        path: String, account: AccountID, containerID: ContainerIdentifier, clock: any WallClock,
        durability: Durability, verifyIntegrity: Bool = false, verificationMemo: VerificationMemo? = nil
    ) throws {
        connection = try DatabaseFile.open(
            at: path, format: Self.format, create: true, durability: durability, verifyIntegrity: verifyIntegrity,
            verificationMemo: verificationMemo)
        try claim(account: account, containerID: containerID, clock: clock)
    }

    /// Opens an existing container file for reading only, as the audit does.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - verifyIntegrity: Whether to check every page first.
    ///   - verificationMemo: Where checked states are remembered, to check a file once per change.
    /// - Throws: ``DatabaseFileError`` for a missing, damaged or foreign file.
    init(readingOnly path: String, verifyIntegrity: Bool = true, verificationMemo: VerificationMemo? = nil) throws {
        connection = try DatabaseFile.open(
            at: path, format: Self.format, create: false, readOnly: true, verifyIntegrity: verifyIntegrity,
            verificationMemo: verificationMemo)
    }

    /// Records, on first use, which account and container the file belongs to; refuses a file of another.
    private func claim(account: AccountID, containerID: ContainerIdentifier, clock: any WallClock) throws {
        try connection.transaction {
            let owner = try connection.scalarText("SELECT value FROM meta WHERE key = 'account'")
            let container = try connection.scalarText("SELECT value FROM meta WHERE key = 'container_identifier'")
            if owner == nil {
                let now = clock.now().timeIntervalSinceReferenceDate
                let identity = "\(account.rawValue)|\(containerID.rawValue)|\(now)"
                let id =
                    StableHash.hex(StableHash.fnv1a64(identity)) + StableHash.hex(StableHash.fnv1a64(identity, seed: 7))
                try connection.run("INSERT INTO meta (key, value) VALUES ('account', ?)", .text(account.rawValue))
                try connection.run(
                    "INSERT INTO meta (key, value) VALUES ('container_identifier', ?)", .text(containerID.rawValue))
                try connection.run("INSERT INTO meta (key, value) VALUES ('database_id', ?)", .text(id))
                try connection.run("INSERT INTO meta (key, value) VALUES ('created_at', ?)", .real(now))
            } else if owner != account.rawValue || container != containerID.rawValue {
                throw DatabaseFileError(
                    .foreignDatabase, path: connection.path,
                    detail: "it holds account \(owner ?? "?")'s database for \(container ?? "?"), not \(account)'s "
                        + "for \(containerID)")
            }
        }
    }

    // MARK: Transactions

    func read<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(.deferred, body)
    }

    func write<T>(_ body: () throws -> T) throws -> T {
        // What another process wrote since is seen once the lock is held, so the cache lives in one transaction.
        defer { zoneHasTombstones = [:] }
        return try connection.transaction(.immediate, body)
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.cachedStatement(literal: "SAVEPOINT zone_batch").run()
        do {
            let value = try body()
            try connection.cachedStatement(literal: "RELEASE zone_batch").run()
            return value
        } catch {
            // If SQLite already rolled the whole transaction back (a full disk, an I/O error), the savepoint is gone;
            // the error worth reporting is the one that got us here.
            try? connection.execute("ROLLBACK TO zone_batch")
            try? connection.execute("RELEASE zone_batch")
            throw error
        }
    }

    // MARK: Meta

    func databaseID() throws -> String {
        if let cachedDatabaseID { return cachedDatabaseID }
        guard let id = try connection.scalarText("SELECT value FROM meta WHERE key = 'database_id'") else {
            throw DatabaseFileError(.damaged, path: location, detail: "the meta table has no database_id")
        }
        cachedDatabaseID = id
        return id
    }

    func reserveSequence(_ count: Int) throws -> Int64 {
        guard
            let next = try connection.scalarInt(
                "UPDATE meta SET value = value + ?1 WHERE key = 'next_change_seq' RETURNING value - ?1",
                .integer(Int64(count)))
        else { throw DatabaseFileError(.damaged, path: location, detail: "the meta table has no next_change_seq") }
        return next
    }

    // MARK: Zones

    private static func zone(_ row: Statement) -> StoredZone {
        StoredZone(
            name: row.text(0), incarnation: row.int64(1),
            capabilities: RecordZone.Capabilities(rawValue: row.int(2)), changeSequence: row.int64(3))
    }

    func zone(named name: String) throws -> StoredZone? {
        try connection.query(
            "SELECT zone_name, incarnation, capabilities, change_seq FROM zones WHERE zone_name = ?", .text(name),
            row: Self.zone
        ).first
    }

    func zones() throws -> [StoredZone] {
        try connection.query("SELECT zone_name, incarnation, capabilities, change_seq FROM zones", row: Self.zone)
    }

    func insertZone(_ zone: StoredZone) throws {
        try connection.run(
            "INSERT INTO zones (zone_name, incarnation, capabilities, change_seq, created_at) VALUES (?, ?, ?, ?, 0)",
            .text(zone.name), .integer(zone.incarnation), .integer(Int64(zone.capabilities.rawValue)),
            .integer(zone.changeSequence))
    }

    func touchZone(named name: String, sequence: Int64) throws {
        try connection.run("UPDATE zones SET change_seq = ? WHERE zone_name = ?", .integer(sequence), .text(name))
    }

    func removeZone(
        named name: String, incarnation: Int64, reason: DatabaseChanges.DeletionReason, sequence: Int64
    )
        throws
    {
        try connection.run("DELETE FROM records WHERE zone_name = ?", .text(name))
        try connection.run("DELETE FROM record_tombstones WHERE zone_name = ?", .text(name))
        guard !name.isDefaultZoneName else { return }
        try connection.run("DELETE FROM zones WHERE zone_name = ?", .text(name))
        if reason == .encryptedDataReset { try upgradeTombstoneReasons() }
        try connection.run(
            "INSERT INTO zone_tombstones (change_seq, zone_name, incarnation, reason) VALUES (?, ?, ?, ?)",
            .integer(sequence), .text(name), .integer(incarnation), .text(reason.rawValue))
    }

    /// Rebuilds a version-1 file's `zone_tombstones`, whose CHECK allows only `deleted` and `purged`, with the
    /// version-2 CHECK, and marks the file version 2; inside the caller's write transaction, so it is all or nothing.
    private func upgradeTombstoneReasons() throws {
        guard (try connection.scalarInt("PRAGMA user_version") ?? 0) < 2 else { return }
        try connection.execute(
            """
            CREATE TABLE zone_tombstones_v2 (
                change_seq INTEGER PRIMARY KEY, zone_name TEXT NOT NULL, incarnation INTEGER NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('deleted', 'purged', 'encryptedDataReset')))
            """)
        try connection.execute(
            """
            INSERT INTO zone_tombstones_v2 (change_seq, zone_name, incarnation, reason)
            SELECT change_seq, zone_name, incarnation, reason FROM zone_tombstones
            """)
        try connection.execute("DROP TABLE zone_tombstones")
        try connection.execute("ALTER TABLE zone_tombstones_v2 RENAME TO zone_tombstones")
        try connection.execute("CREATE INDEX zone_tombstones_by_name ON zone_tombstones (zone_name, change_seq)")
        try connection.execute("PRAGMA user_version = 2")
    }

    func lastRemoval(ofZoneNamed name: String) throws -> DatabaseChanges.DeletionReason? {
        try connection.scalarText(
            "SELECT reason FROM zone_tombstones WHERE zone_name = ? ORDER BY change_seq DESC LIMIT 1", .text(name)
        ).flatMap(DatabaseChanges.DeletionReason.init(rawValue:))
    }

    func zoneRemovals(after sequence: Int64, limit: Int) throws -> [ZoneRemoval] {
        try connection.query(
            "SELECT zone_name, reason, change_seq FROM zone_tombstones WHERE change_seq > ? ORDER BY change_seq LIMIT ?",
            .integer(sequence), .integer(Int64(limit))
        ) { row in
            ZoneRemoval(
                name: row.text(0), reason: DatabaseChanges.DeletionReason(rawValue: row.text(1)) ?? .deleted,
                sequence: row.int64(2))
        }
    }

    // MARK: Records

    func record(in zone: String, named name: String) throws -> Record? {
        let statement = try connection.cachedStatement(
            literal: """
                SELECT record_type, fields, change_tag, created_at, modified_at, creator, last_modifier
                FROM records WHERE zone_name = ? AND record_name = ?
                """)
        defer { statement.reset() }
        try statement.bind(zone, at: 1)
        try statement.bind(name, at: 2)
        guard try statement.step() else { return nil }
        return try Self.record(statement, firstColumn: 0, name: name, zone: zone, location: location)
    }

    /// Reads a record from seven columns: type, fields, tag, created, modified, creator, last modifier.
    static func record(
        _ row: Statement, firstColumn c: Int32, name: String, zone: String, location: String
    ) throws
        -> Record
    {
        let fields: [String: FieldValue]
        do {
            fields = try row.withBytes(c + 1) { bytes throws(FieldsDecodingError) in try FieldsJSON.decode(bytes) }
        } catch {
            throw DatabaseFileError(
                .damaged, path: location, detail: "record \(name) in zone \(zone) has unreadable fields: \(error)")
        }
        return Record(
            recordID: RecordID(uncheckedName: name, zoneID: ZoneID(uncheckedName: zone)), recordType: row.text(c),
            fields: fields,
            systemFields: SystemFields(
                changeTag: row.text(c + 2), creationDate: Date(timeIntervalSinceReferenceDate: row.double(c + 3)),
                modificationDate: Date(timeIntervalSinceReferenceDate: row.double(c + 4)),
                creatorUserRecordID: UserRecordID(recordName: row.text(c + 5)),
                lastModifiedUserRecordID: UserRecordID(recordName: row.text(c + 6))))
    }

    /// Binds a row to parameters 1 to 8 of the statement that writes it, numbered alike in the insert and the update:
    /// zone, name, type, fields, change tag, sequence, time, user.
    ///
    /// - Parameters:
    ///   - row: The row.
    ///   - statement: The insert or the update.
    /// - Throws: ``SQLiteError`` when a value cannot be bound.
    private static func bind(_ row: RecordRow, to statement: Statement) throws(SQLiteError) {
        try statement.bind(row.zone, at: 1)
        try statement.bind(row.name, at: 2)
        try statement.bind(row.recordType, at: 3)
        try statement.bindText(row.encodedFields, at: 4)
        try statement.bind(row.changeTag, at: 5)
        try statement.bind(row.sequence, at: 6)
        try statement.bind(row.date.timeIntervalSinceReferenceDate, at: 7)
        try statement.bind(row.user.recordName, at: 8)
    }

    func insertRecord(_ row: RecordRow) throws -> Bool {
        let insert = try connection.cachedStatement(
            literal: """
                INSERT INTO records (zone_name, record_name, record_type, fields, change_tag, change_seq, created_at,
                    modified_at, creator, last_modifier)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?8) ON CONFLICT DO NOTHING
                """)
        try Self.bind(row, to: insert)
        try insert.run()
        guard connection.changes == 1 else { return false }
        let hasTombstones: Bool
        if let known = zoneHasTombstones[row.zone] {
            hasTombstones = known
        } else {
            hasTombstones =
                try connection.scalarInt(
                    "SELECT 1 FROM record_tombstones WHERE zone_name = ? LIMIT 1", .text(row.zone)) != nil
            zoneHasTombstones[row.zone] = hasTombstones
        }
        guard hasTombstones else { return true }
        let forget = try connection.cachedStatement(
            literal: "DELETE FROM record_tombstones WHERE zone_name = ?1 AND record_name = ?2")
        try forget.bind(row.zone, at: 1)
        try forget.bind(row.name, at: 2)
        try forget.run()
        return true
    }

    func updateRecord(_ row: RecordRow, expectedChangeTag: String?) throws -> (Date, UserRecordID)? {
        let update = try connection.cachedStatement(
            literal: """
                UPDATE records SET fields = ?4, change_tag = ?5, change_seq = ?6, modified_at = ?7, last_modifier = ?8
                WHERE zone_name = ?1 AND record_name = ?2 AND record_type = ?3 AND (?9 IS NULL OR change_tag = ?9)
                RETURNING created_at, creator
                """)
        defer { update.reset() }
        try Self.bind(row, to: update)
        try update.bind(expectedChangeTag, at: 9)
        guard try update.step() else { return nil }
        let result = (Date(timeIntervalSinceReferenceDate: update.double(0)), UserRecordID(recordName: update.text(1)))
        while try update.step() {}
        return result
    }

    func deleteRecord(in zone: String, named name: String, sequence: Int64, at date: Date) throws -> String? {
        guard
            let type = try connection.scalarText(
                "DELETE FROM records WHERE zone_name = ? AND record_name = ? RETURNING record_type", .text(zone),
                .text(name))
        else { return nil }
        zoneHasTombstones[zone] = true
        try connection.run(
            """
            INSERT OR REPLACE INTO record_tombstones (zone_name, record_name, record_type, change_seq, deleted_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            .text(zone), .text(name), .text(type), .integer(sequence), .real(date.timeIntervalSinceReferenceDate))
        return type
    }

    /// A zone's changes after a sequence number, oldest first: its records' and its tombstones'.
    ///
    /// Both arms walk an index on (zone_name, change_seq) from the sequence on, and SQLite merges them in that order
    /// as it steps, reading no further than the limit: the cost follows the number of changes returned, not the size
    /// of the zone, and no row is copied into a sorter (arms wrapped in subqueries were each sorted again, their
    /// whole rows copied: `make bench`, `initial_sync_ratio`). `FileContainerTests` pins the plan.
    static let changesQuery: StaticString = """
        SELECT change_seq, record_name, record_type, fields, change_tag, created_at, modified_at, creator, last_modifier
        FROM records WHERE zone_name = ?1 AND change_seq > ?2
        UNION ALL
        SELECT change_seq, record_name, record_type, NULL, NULL, NULL, NULL, NULL, NULL
        FROM record_tombstones WHERE zone_name = ?1 AND change_seq > ?2
        ORDER BY change_seq LIMIT ?3
        """

    func changes(in zone: String, after sequence: Int64, limit: Int) throws -> [StoredChange] {
        let statement = try connection.cachedStatement(literal: Self.changesQuery)
        defer { statement.reset() }
        try statement.bind(zone, at: 1)
        try statement.bind(sequence, at: 2)
        try statement.bind(Int64(limit), at: 3)
        var changes: [StoredChange] = []
        while try statement.step() {
            let sequence = statement.int64(0)
            let name = statement.text(1)
            if statement.isNull(3) {
                changes.append(.deleted(name: name, recordType: statement.text(2), sequence: sequence))
            } else {
                let record = try Self.record(statement, firstColumn: 2, name: name, zone: zone, location: location)
                changes.append(.modified(record, sequence: sequence))
            }
        }
        return changes
    }

    // MARK: Record types

    func fieldTypes(of recordType: String) throws -> [String: FieldType] {
        var types: [String: FieldType] = [:]
        for (name, typeName) in try connection.query(
            "SELECT field_name, field_type FROM record_type_fields WHERE record_type = ?", .text(recordType),
            row: { ($0.text(0), $0.text(1)) })
        {
            guard let type = FieldType(name: typeName) else {
                throw DatabaseFileError(
                    .damaged, path: location, detail: "record type \(recordType) has unknown field type \(typeName)")
            }
            types[name] = type
        }
        return types
    }

    func addFieldTypes(_ types: [String: FieldType], to recordType: String) throws {
        for (name, type) in types.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "INSERT OR IGNORE INTO record_type_fields (record_type, field_name, field_type) VALUES (?, ?, ?)",
                .text(recordType), .text(name), .text(type.name))
        }
    }
}

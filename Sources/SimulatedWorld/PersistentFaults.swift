import DeviceStore
public import PrivateCloud
public import PrivateCloudFaults
import PrivateSyncFileSystem
import PrivateSyncSQLite
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Faults kept in a world's `faults.sqlite`, so that the commands run after `fault inject` (each its own process)
/// meet them. Each fault strikes the next calls it applies to, up to its count, and is consumed in the same
/// SQLite transaction that finds it, so two processes never both take the last strike.
public final class PersistentFaults: FaultSource {
    /// A fault waiting in the file.
    public struct Entry: Sendable, Hashable {
        /// The fault's order of injection.
        public let id: Int64
        /// The kind.
        public let kind: FaultKind
        /// The account it is aimed at, or `nil` for any.
        public let account: AccountID?
        /// The device it is aimed at, or `nil` for any.
        public let device: String?
        /// The record it is aimed at, or `nil` for any.
        public let record: String?
        /// How many more calls it strikes.
        public let remaining: Int
        /// How many more calls it applies to that it lets through first.
        public let after: Int
        /// The retry-after it carries, in seconds.
        public let retryAfter: Double?

        /// The fault it injects.
        public var fault: Fault { Fault(kind, retryAfter: retryAfter, record: record) }
    }

    /// The largest count (`remaining`, `after`) a fault may carry.
    public static let maximumCount = 1_000_000
    /// The longest retry-after a fault may carry, in seconds.
    public static let maximumRetryAfter: Double = 86_400

    /// What is wrong with a row of the fault file.
    struct RowProblem: Error {
        let detail: String
    }

    /// The fault file's format. Version 2 added `device`, `record` and `skip` (the calls still to let through);
    /// a version-1 file is upgraded in place, in one transaction, the first time this build opens it (its faults
    /// keep their meaning: any device, any record, none let through). Version 1 builds refuse a version-2 file as
    /// written by a newer version.
    static let format = DatabaseFormat(
        applicationID: 0x5053_4631, version: 2, name: "PrivateSync fault file",
        schema: [
            """
            CREATE TABLE faults (
                id INTEGER PRIMARY KEY, kind TEXT NOT NULL, account TEXT, remaining INTEGER NOT NULL CHECK (remaining > 0),
                retry_after REAL, device TEXT, record TEXT, skip INTEGER NOT NULL DEFAULT 0 CHECK (skip >= 0))
            """,
            "CREATE TABLE struck (kind TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID",
        ])

    /// The fault file's format as version-1 builds wrote it: the file ``upgradeFromVersion1`` starts from, written
    /// down so that a test can make one as an earlier build did.
    package static let version1Format = DatabaseFormat(
        applicationID: format.applicationID, version: 1, name: format.name,
        schema: [
            """
            CREATE TABLE faults (
                id INTEGER PRIMARY KEY, kind TEXT NOT NULL, account TEXT,
                remaining INTEGER NOT NULL CHECK (remaining > 0), retry_after REAL)
            """,
            "CREATE TABLE struck (kind TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID",
        ])

    /// The statements that take a version-1 file to version 2.
    static let upgradeFromVersion1 = [
        "ALTER TABLE faults ADD COLUMN device TEXT",
        "ALTER TABLE faults ADD COLUMN record TEXT",
        "ALTER TABLE faults ADD COLUMN skip INTEGER NOT NULL DEFAULT 0 CHECK (skip >= 0)",
        "PRAGMA user_version = 2",
    ]

    /// The file.
    public let path: String
    /// Whether opening the file reads every page (`PRAGMA integrity_check`), as the CLI asks for every file.
    public let verifyIntegrity: Bool
    /// Where the states of files that passed that check are remembered, to check the file once per change.
    public let verificationMemo: VerificationMemo?
    private let opened = Mutex<SerializedConnection?>(nil)

    /// A fault file at `path`; it is opened (and created) at its first use, so that commands that never reach a
    /// container never touch it.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - verifyIntegrity: Whether opening the file reads every page, so that damage anywhere is reported.
    ///   - verificationMemo: Where checked states are remembered, to check the file once per change rather than at
    ///     every opening; `nil` checks at every opening.
    public init(path: String, verifyIntegrity: Bool = false, verificationMemo: VerificationMemo? = nil) {
        self.path = path
        self.verifyIntegrity = verifyIntegrity
        self.verificationMemo = verificationMemo
    }

    /// The open file.
    ///
    /// - Throws: `DatabaseFileError` when it is damaged or foreign.
    private var connection: SerializedConnection {
        get throws {
            try opened.withLock { (opened: inout SerializedConnection?) throws -> SerializedConnection in
                if let opened { return opened }
                let file = try DatabaseFile.open(
                    at: path, format: Self.format, create: true, verifyIntegrity: verifyIntegrity,
                    verificationMemo: verificationMemo)
                try Self.upgrade(file, path: path)
                let connection = SerializedConnection(file)
                opened = connection
                return connection
            }
        }
    }

    /// Takes a version-1 file to version 2 in one transaction; a file already at version 2 is left alone.
    ///
    /// - Throws: `DatabaseFileError` when the file cannot be upgraded; it is then left as it was.
    private static func upgrade(_ connection: Connection, path: String) throws {
        do {
            try connection.transaction(.immediate) { () throws in
                let version = try connection.scalarInt("PRAGMA user_version") ?? 0
                guard version < Int64(format.version) else { return }
                guard version == 1 else {
                    throw DatabaseFileError(
                        .damaged, path: path, detail: "schema version \(version) is not one this build can read")
                }
                for statement in upgradeFromVersion1 { try connection.execute(statement) }
            }
        } catch let error as DatabaseFileError {
            throw error
        } catch let error as SQLiteError {
            throw DatabaseFileError(sqlite: error, path: path)
        }
    }

    /// A read-only connection to the file and the columns to read a fault with, or `nil` when there is no file:
    /// listing and checking the faults creates and writes nothing (a version-1 file is read as it is, not upgraded),
    /// and works on a read-only world.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged or foreign.
    private func readingConnection() throws -> (Connection, columns: String)? {
        guard FileSystem.exists(path) else { return nil }
        let connection = try DatabaseFile.open(
            at: path, format: Self.format, create: false, readOnly: true, verifyIntegrity: verifyIntegrity,
            verificationMemo: verificationMemo)
        let version: Int64?
        do {
            version = try connection.scalarInt("PRAGMA user_version")
        } catch {
            throw DatabaseFileError(sqlite: error, path: path)
        }
        // Version 1 had no device, record or skip: any device, any record, none let through.
        let columns = version == 1 ? "id, kind, account, remaining, retry_after, NULL, NULL, 0" : Self.entryColumns
        return (connection, columns)
    }

    /// Opens the file now and checks every row, so that a damaged file, or a row out of range (an unknown kind, a
    /// retry-after beyond a day, a count below 1), is reported before a command relies on its faults.
    ///
    /// - Throws: `DatabaseFileError` when it is damaged, foreign, or holds a row out of range.
    public func verify() throws {
        _ = try entries()
        _ = try struckCounts()
    }

    /// Adds a fault.
    ///
    /// - Parameters:
    ///   - fault: The fault; its `Fault/record`, when set, limits it to calls naming that record.
    ///   - account: Only calls for this account, or any.
    ///   - device: Only calls from this device, or any.
    ///   - count: How many calls it strikes, 1 to ``maximumCount``.
    ///   - after: How many calls it applies to that it lets through first, 0 to ``maximumCount``.
    /// - Throws: `SQLiteError` when the file cannot be written.
    public func inject(_ fault: Fault, account: AccountID?, device: String? = nil, count: Int, after: Int = 0) throws {
        try connection.withConnection { connection throws in
            try connection.run(
                "INSERT INTO faults (kind, account, remaining, retry_after, device, record, skip) VALUES (?, ?, ?, ?, ?, ?, ?)",
                .text(fault.kind.rawValue), account.map { .text($0.rawValue) } ?? .null, .integer(Int64(count)),
                fault.retryAfter.map { .real($0) } ?? .null, device.map { .text($0) } ?? .null,
                fault.record.map { .text($0) } ?? .null, .integer(Int64(after)))
        }
    }

    private static let entryColumns = "id, kind, account, remaining, retry_after, device, record, skip"

    /// A row of `faults` read back, every value range-checked; `nil` with what is wrong otherwise.
    private static func entry(_ row: Statement) -> Result<Entry, RowProblem> {
        let id = row.int64(0)
        func bad(_ detail: String) -> Result<Entry, RowProblem> {
            .failure(RowProblem(detail: "fault \(id) holds \(detail)"))
        }
        guard let kindName = row.optionalText(1), let kind = FaultKind(rawValue: kindName) else {
            return bad("an unknown kind")
        }
        var account: AccountID?
        if let text = row.optionalText(2) {
            guard let valid = try? AccountID(text) else { return bad("an invalid account name") }
            account = valid
        }
        guard case .integer(let remaining) = row.value(3), (1...Int64(maximumCount)).contains(remaining) else {
            return bad("a count out of range")
        }
        var retryAfter: Double?
        switch row.value(4) {
        case .null: retryAfter = nil
        case .real(let value) where value.isFinite && (0...maximumRetryAfter).contains(value): retryAfter = value
        case .integer(let value) where (0...Int64(maximumRetryAfter)).contains(value): retryAfter = Double(value)
        default: return bad("a retry-after out of range")
        }
        let device = row.optionalText(5)
        if let device, (try? DeviceName.validate(device)) == nil { return bad("an invalid device name") }
        let record = row.optionalText(6)
        if let record, CloudKitNames.problem(withRecordName: record) != nil { return bad("an invalid record name") }
        guard case .integer(let skip) = row.value(7), (0...Int64(maximumCount)).contains(skip) else {
            return bad("an 'after' count out of range")
        }
        return .success(
            Entry(
                id: id, kind: kind, account: account, device: device, record: record, remaining: Int(remaining),
                after: Int(skip), retryAfter: retryAfter))
    }

    /// The faults still waiting, in injection order.
    ///
    /// - Throws: `DatabaseFileError` `damaged` when a row holds a value out of range (an unknown kind, a count
    ///   that no `fault inject` could have written), or when the file cannot be read.
    public func entries() throws -> [Entry] {
        guard let (connection, columns) = try readingConnection() else { return [] }
        let rows = try connection.query("SELECT \(columns) FROM faults ORDER BY id") { Self.entry($0) }
        return try rows.map { result throws in
            switch result {
            case .success(let entry): return entry
            case .failure(let problem): throw DatabaseFileError(.damaged, path: path, detail: problem.detail)
            }
        }
    }

    /// How many times each kind has struck since the file was created.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged or a row is out of range.
    public func struckCounts() throws -> [FaultKind: Int] {
        guard let (connection, _) = try readingConnection() else { return [:] }
        let rows = try connection.query("SELECT kind, count FROM struck") { ($0.value(0), $0.value(1)) }
        var counts: [FaultKind: Int] = [:]
        for (kind, count) in rows {
            guard case .text(let name) = kind, let kind = FaultKind(rawValue: name) else {
                throw DatabaseFileError(
                    .damaged, path: path, detail: "a struck count's kind \(kind.debugText) is not a fault kind")
            }
            guard case .integer(let value) = count, (0...(Int64(1) << 53)).contains(value) else {
                throw DatabaseFileError(
                    .damaged, path: path, detail: "the struck count of \(kind) \(count.debugText) is out of range")
            }
            counts[kind] = Int(value)
        }
        return counts
    }

    /// Removes every waiting fault, without reading their values: how a user recovers from a hand-edited row out of
    /// range, which every other use of the file refuses.
    ///
    /// - Returns: How many faults were removed.
    /// - Throws: `SQLiteError` when the file cannot be written.
    @discardableResult
    public func clear() throws -> Int {
        try connection.withConnection { connection throws in
            try connection.run("DELETE FROM faults")
            return connection.changes
        }
    }

    public func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        nextFault(for: call, target: CallTarget(account: account))
    }

    public func nextFault(for call: ContainerCall, target: CallTarget) -> Fault? {
        // A fault file that cannot be opened injects nothing; `fault list` reports what is wrong with it.
        guard let connection = try? connection else { return nil }
        let result = connection.withConnection { connection -> Fault? in
            try? connection.transaction(.immediate) { () throws -> Fault? in
                let candidates = try connection.query("SELECT \(Self.entryColumns) FROM faults ORDER BY id") {
                    Self.entry($0)
                }
                // A row out of range strikes nothing; `fault list` reports it.
                for case .success(let entry) in candidates {
                    guard entry.kind.applies(to: call), entry.account == nil || entry.account == target.account,
                        entry.device == nil || entry.device == target.device,
                        entry.record.map({ target.recordNames.contains($0) }) ?? true
                    else { continue }
                    if entry.after > 0 {
                        // Still letting calls through: this one counts, and the faults after it may strike.
                        try connection.run("UPDATE faults SET skip = skip - 1 WHERE id = ?", .integer(entry.id))
                        continue
                    }
                    try connection.run(
                        "UPDATE faults SET remaining = remaining - 1 WHERE id = ? AND remaining > 1",
                        .integer(entry.id))
                    if connection.changes == 0 {
                        try connection.run("DELETE FROM faults WHERE id = ?", .integer(entry.id))
                    }
                    try connection.run(
                        "INSERT INTO struck (kind, count) VALUES (?, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1",
                        .text(entry.kind.rawValue))
                    return entry.fault
                }
                return nil
            } ?? nil
        }
        return result
    }
}

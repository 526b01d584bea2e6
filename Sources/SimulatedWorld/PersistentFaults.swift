import FoundationEssentials
import PrivateCloud
import SQLite
import Synchronization

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
        /// How many more calls it strikes.
        public let remaining: Int
        /// The retry-after it carries, in seconds.
        public let retryAfter: Double?
    }

    static let format = DatabaseFormat(
        applicationID: 0x5053_4631, version: 1, name: "PrivateSync fault file",
        schema: [
            """
            CREATE TABLE faults (
                id INTEGER PRIMARY KEY, kind TEXT NOT NULL, account TEXT, remaining INTEGER NOT NULL CHECK (remaining > 0),
                retry_after REAL)
            """,
            "CREATE TABLE struck (kind TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID",
        ])

    /// The file.
    public let path: String
    /// Whether opening the file reads every page (`PRAGMA quick_check`), as the CLI asks for every file.
    public let verifyIntegrity: Bool
    private let opened = Mutex<SerializedConnection?>(nil)

    /// A fault file at `path`; it is opened (and created) at its first use, so that commands that never reach a
    /// container never touch it.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - verifyIntegrity: Whether opening the file reads every page, so that damage anywhere is reported.
    public init(path: String, verifyIntegrity: Bool = false) {
        self.path = path
        self.verifyIntegrity = verifyIntegrity
    }

    /// The open file.
    ///
    /// - Throws: `DatabaseFileError` when it is damaged or foreign.
    private var connection: SerializedConnection {
        get throws {
            try opened.withLock { (opened: inout SerializedConnection?) throws -> SerializedConnection in
                if let opened { return opened }
                let connection = SerializedConnection(
                    try DatabaseFile.open(
                        at: path, format: Self.format, create: true, verifyIntegrity: verifyIntegrity))
                opened = connection
                return connection
            }
        }
    }

    /// Opens the file now, so that a damaged one is reported before a command relies on its faults.
    ///
    /// - Throws: `DatabaseFileError` when it is damaged or foreign.
    public func verify() throws {
        _ = try connection
    }

    /// Adds a fault.
    ///
    /// - Parameters:
    ///   - fault: The fault.
    ///   - account: Only calls for this account, or any.
    ///   - count: How many calls it strikes, at least 1.
    /// - Throws: `SQLiteError` when the file cannot be written.
    public func inject(_ fault: Fault, account: AccountID?, count: Int) throws {
        try connection.withConnection { connection throws in
            try connection.run(
                "INSERT INTO faults (kind, account, remaining, retry_after) VALUES (?, ?, ?, ?)",
                .text(fault.kind.rawValue), account.map { .text($0.rawValue) } ?? .null, .integer(Int64(count)),
                fault.retryAfter.map { .real($0) } ?? .null)
        }
    }

    /// The faults still waiting, in injection order.
    public func entries() throws -> [Entry] {
        try connection.withConnection { connection throws in
            try connection.query("SELECT id, kind, account, remaining, retry_after FROM faults ORDER BY id") { row in
                Entry(
                    id: row.int64(0), kind: FaultKind(rawValue: row.text(1)) ?? .networkFailure,
                    account: row.optionalText(2).flatMap { try? AccountID($0) }, remaining: row.int(3),
                    retryAfter: row.isNull(4) ? nil : row.double(4))
            }
        }
    }

    /// How many times each kind has struck since the file was created.
    public func struckCounts() throws -> [FaultKind: Int] {
        try connection.withConnection { connection throws in
            var counts: [FaultKind: Int] = [:]
            for (kind, count) in try connection.query(
                "SELECT kind, count FROM struck", row: { ($0.text(0), $0.int(1)) })
            {
                if let kind = FaultKind(rawValue: kind) { counts[kind] = count }
            }
            return counts
        }
    }

    /// Removes every waiting fault.
    public func clear() throws {
        try connection.withConnection { connection throws in try connection.run("DELETE FROM faults") }
    }

    public func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        // A fault file that cannot be opened injects nothing; `fault list` reports what is wrong with it.
        guard let connection = try? connection else { return nil }
        let result = connection.withConnection { connection -> Fault? in
            try? connection.transaction(.immediate) { () throws -> Fault? in
                let candidates = try connection.query(
                    "SELECT id, kind, account, retry_after FROM faults ORDER BY id"
                ) { ($0.int64(0), $0.text(1), $0.optionalText(2), $0.isNull(3) ? nil : $0.double(3)) }
                for (id, kindName, target, retryAfter) in candidates {
                    guard let kind = FaultKind(rawValue: kindName), kind.applies(to: call),
                        target == nil || target == account?.rawValue
                    else { continue }
                    try connection.run(
                        "UPDATE faults SET remaining = remaining - 1 WHERE id = ? AND remaining > 1", .integer(id))
                    if connection.changes == 0 { try connection.run("DELETE FROM faults WHERE id = ?", .integer(id)) }
                    try connection.run(
                        "INSERT INTO struck (kind, count) VALUES (?, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1",
                        .text(kind.rawValue))
                    return Fault(kind, retryAfter: retryAfter)
                }
                return nil
            } ?? nil
        }
        return result
    }
}

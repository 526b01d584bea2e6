import FileSystem
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

    /// A read-only connection to the file, or `nil` when there is none: listing and checking the faults creates
    /// and writes nothing, and works on a read-only world.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged or foreign.
    private func readingConnection() throws -> Connection? {
        guard FileSystem.exists(path) else { return nil }
        return try DatabaseFile.open(
            at: path, format: Self.format, create: false, readOnly: true, verifyIntegrity: verifyIntegrity)
    }

    /// Opens the file now and checks every row, so that a damaged file, or a row out of range (an unknown kind, a
    /// retry-after beyond a day, a count below 1), is reported before a command relies on its faults.
    ///
    /// - Throws: `DatabaseFileError` when it is damaged, foreign, or holds a row out of range.
    public func verify() throws {
        _ = try entries()
        _ = try struckCounts()
    }

    /// The most calls one fault strikes, and the longest retry-after it carries (a day), as `fault inject` allows.
    static let maximumCount: Int64 = 1_000_000
    static let maximumRetryAfter: Double = 86_400

    /// A row of `faults` checked: its values, or why it is out of range.
    private static func entry(_ row: Statement) -> Result<Entry, RowProblem> {
        guard case .integer(let id) = row.value(0) else {
            return .failure(RowProblem("a fault's id is not an integer"))
        }
        guard case .text(let kindName) = row.value(1), let kind = FaultKind(rawValue: kindName) else {
            return .failure(RowProblem("fault \(id)'s kind \(row.value(1).brief) is not a fault kind"))
        }
        var account: AccountID?
        switch row.value(2) {
        case .null: account = nil
        case .text(let text):
            guard let parsed = try? AccountID(text) else {
                return .failure(RowProblem("fault \(id)'s account \(row.value(2).brief) is not a valid account"))
            }
            account = parsed
        default: return .failure(RowProblem("fault \(id)'s account \(row.value(2).brief) is not text"))
        }
        guard case .integer(let remaining) = row.value(3), (1...maximumCount).contains(remaining) else {
            return .failure(
                RowProblem("fault \(id)'s remaining count \(row.value(3).brief) is not from 1 to \(maximumCount)"))
        }
        var retryAfter: Double?
        switch row.value(4) {
        case .null: retryAfter = nil
        case .real(let seconds) where seconds.isFinite && (0...maximumRetryAfter).contains(seconds):
            retryAfter = seconds
        case .integer(let seconds) where (0...Int64(maximumRetryAfter)).contains(seconds): retryAfter = Double(seconds)
        default:
            return .failure(
                RowProblem(
                    "fault \(id)'s retry_after \(row.value(4).brief) is not a number of seconds from 0 to \(maximumRetryAfter)"
                ))
        }
        return .success(Entry(id: id, kind: kind, account: account, remaining: Int(remaining), retryAfter: retryAfter))
    }

    /// The faults still waiting, in injection order.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged or a row is out of range.
    public func entries() throws -> [Entry] {
        guard let connection = try readingConnection() else { return [] }
        let results = try connection.query(
            "SELECT id, kind, account, remaining, retry_after FROM faults ORDER BY id"
        ) { Self.entry($0) }
        return try results.map { result throws(DatabaseFileError) in
            switch result {
            case .success(let entry): return entry
            case .failure(let problem): throw DatabaseFileError(.damaged, path: path, detail: problem.text)
            }
        }
    }

    /// How many times each kind has struck since the file was created.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged or a row is out of range.
    public func struckCounts() throws -> [FaultKind: Int] {
        guard let connection = try readingConnection() else { return [:] }
        let rows = try connection.query("SELECT kind, count FROM struck") { ($0.value(0), $0.value(1)) }
        var counts: [FaultKind: Int] = [:]
        for (kind, count) in rows {
            guard case .text(let name) = kind, let kind = FaultKind(rawValue: name) else {
                throw DatabaseFileError(
                    .damaged, path: path, detail: "a struck count's kind \(kind.brief) is not a fault kind")
            }
            guard case .integer(let value) = count, (0...(Int64(1) << 53)).contains(value) else {
                throw DatabaseFileError(
                    .damaged, path: path, detail: "the struck count of \(kind) \(count.brief) is out of range")
            }
            counts[kind] = Int(value)
        }
        return counts
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
        // A fault file that cannot be opened injects nothing; `fault list` reports what is wrong with it.
        guard let connection = try? connection else { return nil }
        let result = connection.withConnection { connection -> Fault? in
            try? connection.transaction(.immediate) { () throws -> Fault? in
                // A row out of range never strikes (`fault list` and `sync now` refuse the file, naming it).
                let candidates = try connection.query(
                    "SELECT id, kind, account, remaining, retry_after FROM faults ORDER BY id"
                ) { try? Self.entry($0).get() }
                for case let candidate? in candidates {
                    let (id, kind, target, retryAfter) = (
                        candidate.id, candidate.kind, candidate.account, candidate.retryAfter
                    )
                    guard kind.applies(to: call), target == nil || target == account else { continue }
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

/// Why a row of the fault file is out of range.
struct RowProblem: Error {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

extension SQLiteValue {
    /// The value, briefly, for messages naming a bad row.
    fileprivate var brief: String {
        switch self {
        case .null: "null"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "\"\(value.prefix(40))\""
        case .blob(let value): "(a blob of \(value.count) bytes)"
        }
    }
}

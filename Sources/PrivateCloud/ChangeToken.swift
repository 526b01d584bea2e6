/// A server change token: a point in a zone's (or the database's) history. Opaque to callers.
///
/// Tokens are safe to store (``bytes`` and ``init(bytes:)``) and hand back later. A token is refused with
/// `changeTokenExpired` when it belongs to another database, another zone, or an earlier incarnation of the zone
/// (one that was deleted and created again); callers then fetch again from `nil`.
public struct ChangeToken: Hashable, Sendable, CustomStringConvertible {
    /// The token's stored form.
    public let bytes: [UInt8]

    /// Restores a token from its stored form.
    ///
    /// - Parameter bytes: What ``bytes`` gave.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// What the token points into.
    enum Scope: Equatable {
        case database
        case zone(name: String, incarnation: Int64)
    }

    /// The token's contents, as only a container reads them.
    struct Contents: Equatable {
        let databaseID: String
        let scope: Scope
        let sequence: Int64
    }

    private static let magic = "pstoken1"

    init(_ contents: Contents) {
        var parts = [Self.magic, contents.databaseID]
        switch contents.scope {
        case .database: parts.append("db")
        case .zone(let name, let incarnation): parts += ["zone", String(incarnation), name]
        }
        parts.insert(String(contents.sequence), at: 2)
        self.bytes = Array(parts.joined(separator: "\u{1F}").utf8)
    }

    /// Reads the contents back, or `nil` when the bytes are not a token of this format.
    var contents: Contents? {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: "\u{1F}", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == Self.magic, let sequence = Int64(parts[2]) else { return nil }
        switch parts[3] {
        case "db" where parts.count == 4:
            return Contents(databaseID: String(parts[1]), scope: .database, sequence: sequence)
        case "zone" where parts.count == 6:
            guard let incarnation = Int64(parts[4]) else { return nil }
            return Contents(
                databaseID: String(parts[1]), scope: .zone(name: String(parts[5]), incarnation: incarnation),
                sequence: sequence)
        default:
            return nil
        }
    }

    /// A token at the start of what this one points into: what a fetch from `nil` would hand back if the zone (or
    /// the database) held nothing. A token of another format is handed back as it is.
    package var atStart: ChangeToken {
        guard let contents else { return self }
        return ChangeToken(Contents(databaseID: contents.databaseID, scope: contents.scope, sequence: 0))
    }

    public var description: String { "ChangeToken(\(bytes.count) bytes)" }
}

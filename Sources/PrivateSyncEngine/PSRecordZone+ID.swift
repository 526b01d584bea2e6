extension PSRecordZone {
    /// The identifier of a record zone, as `CKRecordZone.ID`: a name and the zone's owner.
    ///
    /// In a private database every zone belongs to the signed-in user, whose owner name is
    /// ``currentUserDefaultName``; an identifier naming another owner belongs to a shared database, which this fake
    /// does not have, and every request naming one fails with `invalidArguments`.
    public struct ID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
        /// CloudKit's name for the default zone, as `CKRecordZone.ID.defaultZoneName`.
        public static let defaultZoneName = "_defaultZone"
        /// The owner name that stands for the signed-in user, as `CKCurrentUserDefaultName`.
        public static let currentUserDefaultName = "__defaultOwner__"
        /// The default zone's identifier, as `CKRecordZone.ID.default`.
        public static let `default` = ID()

        /// The zone's name.
        public let zoneName: String
        /// The owner's name when it is not the signed-in user's: nearly every identifier has none, and copying and
        /// hashing one then costs a string less (a send of 100,000 records copies and hashes identifiers by the
        /// million).
        private let otherOwner: String?

        /// The zone's owner: ``currentUserDefaultName`` for the signed-in user.
        public var ownerName: String { otherOwner ?? Self.currentUserDefaultName }

        /// Creates an identifier, as `CKRecordZone.ID(zoneName:ownerName:)`.
        ///
        /// Names are not checked here (CloudKit does not check them either): a request naming a zone CloudKit would
        /// refuse (empty, over 255 characters, starting with an underscore) fails with `invalidArguments`.
        ///
        /// - Parameters:
        ///   - zoneName: The zone's name; the default zone's by default.
        ///   - ownerName: The owner's name; the signed-in user by default.
        public init(zoneName: String = ID.defaultZoneName, ownerName: String = ID.currentUserDefaultName) {
            self.zoneName = zoneName
            self.otherOwner = ownerName == Self.currentUserDefaultName ? nil : ownerName
        }

        /// Whether the zone belongs to the signed-in user, as every zone of a private database does.
        var isOwnedByCurrentUser: Bool { otherOwner == nil }

        private enum CodingKeys: String, CodingKey {
            case zoneName
            case ownerName
        }

        /// Decodes an identifier: its zone's name and its owner's.
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: What the decoder throws for a missing or mistyped key.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                zoneName: try container.decode(String.self, forKey: .zoneName),
                ownerName: try container.decode(String.self, forKey: .ownerName))
        }

        /// Encodes the zone's name and its owner's.
        ///
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(zoneName, forKey: .zoneName)
            try container.encode(ownerName, forKey: .ownerName)
        }

        /// The container's identifier for this zone.
        var containerZoneID: ZoneID { ZoneID(uncheckedName: zoneName) }

        /// The identifier of a zone the container named.
        init(_ zoneID: ZoneID) {
            self.init(zoneName: zoneID.zoneName)
        }

        /// `<CKRecordZoneID: zoneName=..., ownerName=...>`, as CloudKit describes one.
        public var description: String { "<PSRecordZone.ID: zoneName=\(zoneName), ownerName=\(ownerName)>" }

        /// Orders by owner, then name, so that zones are visited in one order on every run.
        public static func < (lhs: ID, rhs: ID) -> Bool {
            (lhs.ownerName, lhs.zoneName) < (rhs.ownerName, rhs.zoneName)
        }
    }
}

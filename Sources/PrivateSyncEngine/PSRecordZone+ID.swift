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
        /// The zone's owner: ``currentUserDefaultName`` for the signed-in user.
        public let ownerName: String

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
            self.ownerName = ownerName
        }

        /// Whether the zone belongs to the signed-in user, as every zone of a private database does.
        var isOwnedByCurrentUser: Bool { ownerName == Self.currentUserDefaultName }

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

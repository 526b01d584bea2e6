/// A record zone, as `CKRecordZone`: a custom zone of the signed-in user's private database.
///
/// A value type here (CloudKit's is a class): delegates only read it and hand it back, which a value does as well,
/// and a value is `Sendable` and `Hashable` without ceremony (``PSSyncEngine/PendingDatabaseChange/saveZone(_:)``
/// holds one).
public struct PSRecordZone: Hashable, Sendable, CustomStringConvertible {
    /// What a zone can do, as `CKRecordZone.Capabilities`.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: UInt

        /// Creates capabilities from raw bits.
        ///
        /// - Parameter rawValue: The bits.
        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// Changes in the zone can be fetched since a change token.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// A modify request in the zone can be applied all or nothing.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// The zone can hold shared records (not modelled by this fake: it has no shared database).
        public static let sharing = Capabilities(rawValue: 1 << 2)
    }

    /// The zone's identifier.
    public let zoneID: ID
    /// What the zone can do: nothing for the default zone; fetching changes and atomic commits for a custom one.
    public let capabilities: Capabilities

    /// A zone with a name, owned by the signed-in user, as `CKRecordZone(zoneName:)`.
    ///
    /// - Parameter zoneName: The zone's name.
    public init(zoneName: String) {
        self.init(zoneID: ID(zoneName: zoneName))
    }

    /// A zone with an identifier, as `CKRecordZone(zoneID:)`.
    ///
    /// - Parameter zoneID: The zone's identifier.
    public init(zoneID: ID) {
        self.zoneID = zoneID
        self.capabilities = zoneID.zoneName == ID.defaultZoneName ? [] : [.fetchChanges, .atomic]
    }

    /// The default zone, as `CKRecordZone.default()`.
    ///
    /// - Returns: The zone every private database has, which can neither fetch changes nor commit atomically.
    public static func `default`() -> PSRecordZone {
        PSRecordZone(zoneID: .default)
    }

    /// The zone's name, as CloudKit's description starts with it.
    public var description: String { "PSRecordZone(\(zoneID.zoneName))" }
}

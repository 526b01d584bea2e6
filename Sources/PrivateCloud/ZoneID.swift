/// The identifier of a record zone in the private database of the signed-in user.
public struct ZoneID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// CloudKit's name for the default zone.
    public static let defaultZoneName = "_defaultZone"
    /// The default zone: it always exists, cannot fetch changes and cannot commit atomically.
    public static let `default` = ZoneID(uncheckedName: defaultZoneName)

    /// The zone's name.
    public let zoneName: String

    /// Creates the identifier of a custom zone.
    ///
    /// - Parameter zoneName: 1 to 255 ASCII characters, not starting with an underscore.
    /// - Throws: ``CloudError`` `invalidArguments` saying what is wrong with the name.
    public init(_ zoneName: String) throws(CloudError) {
        if zoneName == Self.defaultZoneName {
            self.zoneName = zoneName
            return
        }
        if let problem = CloudKitNames.problem(withRecordName: zoneName, kind: "zone name") {
            throw CloudError(.invalidArguments, problem)
        }
        self.zoneName = zoneName
    }

    /// Creates an identifier without checking the name (for names read back from storage).
    public init(uncheckedName: String) {
        self.zoneName = uncheckedName
    }

    /// Whether this is the default zone.
    public var isDefault: Bool { zoneName == Self.defaultZoneName }

    public var description: String { zoneName }

    public static func < (lhs: ZoneID, rhs: ZoneID) -> Bool { lhs.zoneName < rhs.zoneName }
}

/// A record zone and its capabilities.
public struct RecordZone: Hashable, Sendable {
    /// What a zone can do.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Changes in the zone can be fetched since a change token.
        public static let fetchChanges = Capabilities(rawValue: 1)
        /// A modify request in the zone can be applied all or nothing.
        public static let atomic = Capabilities(rawValue: 2)
    }

    /// The zone's identifier.
    public let zoneID: ZoneID
    /// What the zone can do: nothing for the default zone, both for a custom zone.
    public let capabilities: Capabilities

    /// A custom zone, with both capabilities as CloudKit gives every custom zone in a private database.
    ///
    /// - Parameter zoneID: The zone's identifier; not the default zone's.
    public init(zoneID: ZoneID) {
        self.zoneID = zoneID
        self.capabilities = zoneID.isDefault ? [] : [.fetchChanges, .atomic]
    }
}

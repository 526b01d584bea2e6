/// The identifier of a record: its name and its zone. Unique within one private database.
public struct RecordID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The record's name.
    public let recordName: String
    /// The zone the record lives in.
    public let zoneID: ZoneID

    /// Creates an identifier, checking the name as CloudKit does.
    ///
    /// - Parameters:
    ///   - recordName: 1 to 255 ASCII characters, not starting with an underscore.
    ///   - zoneID: The record's zone.
    /// - Throws: ``CloudError`` `invalidArguments` saying what is wrong with the name.
    public init(recordName: String, zoneID: ZoneID = .default) throws(CloudError) {
        if let problem = CloudKitNames.problem(withRecordName: recordName) {
            throw CloudError(.invalidArguments, problem)
        }
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// Creates an identifier without checking the name (for names read back from storage).
    public init(uncheckedName recordName: String, zoneID: ZoneID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    public var description: String { "\(recordName) in \(zoneID.zoneName)" }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        (lhs.zoneID.zoneName, lhs.recordName) < (rhs.zoneID.zoneName, rhs.recordName)
    }
}

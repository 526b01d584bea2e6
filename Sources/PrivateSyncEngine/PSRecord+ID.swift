#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension PSRecord {
    /// The identifier of a record, as `CKRecord.ID`: its name and its zone.
    public struct ID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
        /// The record's name.
        public let recordName: String
        /// The record's zone.
        public let zoneID: PSRecordZone.ID

        /// Creates an identifier, as `CKRecord.ID(recordName:zoneID:)`.
        ///
        /// Names are not checked here (CloudKit does not check them either): a save or fetch of a record CloudKit
        /// would refuse (an empty name, one over 255 characters or starting with an underscore) fails with
        /// `invalidArguments` for that record.
        ///
        /// - Parameters:
        ///   - recordName: The record's name; a new UUID by default.
        ///   - zoneID: The record's zone; the default zone by default.
        public init(recordName: String = UUID().uuidString, zoneID: PSRecordZone.ID = .default) {
            self.recordName = recordName
            self.zoneID = zoneID
        }

        /// The container's identifier for this record.
        var containerRecordID: RecordID {
            RecordID(uncheckedName: recordName, zoneID: zoneID.containerZoneID)
        }

        /// The identifier of a record the container named.
        init(_ recordID: RecordID) {
            self.init(recordName: recordID.recordName, zoneID: PSRecordZone.ID(recordID.zoneID))
        }

        /// `<CKRecordID: recordName=..., zoneID=...>`, as CloudKit describes one.
        public var description: String {
            "<PSRecord.ID: recordName=\(recordName), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>"
        }

        /// Orders by zone, then name.
        public static func < (lhs: ID, rhs: ID) -> Bool {
            (lhs.zoneID, lhs.recordName) < (rhs.zoneID, rhs.recordName)
        }
    }
}

import Foundation

/// `CKRecordZone : NSObject <NSSecureCoding, NSCopying>` (H16.4); Sendable per SI26 ≈51,700.
open class CKRecordZone: NSObject, @unchecked Sendable {
    /// H16.4 `initWithZoneID:`; docs `init(zoneID: CKRecordZone.ID)`.
    public init(zoneID: CKRecordZone.ID) { fatalError("stand-in") }
    /// H16.4 `zoneID`.
    open var zoneID: CKRecordZone.ID { fatalError("stand-in") }

    /// `CKRecordZoneID : NSObject <NSSecureCoding, NSCopying>` (H16.4); Sendable per SI26 ≈52,900.
    open class ID: NSObject, @unchecked Sendable {
        /// SI26 ≈51,900: `convenience public init(zoneName: = defaultZoneName, ownerName: = CKCurrentUserDefaultName)`.
        public init(zoneName: String = ID.defaultZoneName, ownerName: String = CKCurrentUserDefaultName) {
            fatalError("stand-in")
        }
        /// SI26 ≈52,200: `public static let default: CKRecordZone.ID`.
        public static let `default` = ID()
        /// SI26 ≈52,300: `public static let defaultZoneName: String`.
        public static let defaultZoneName = "_defaultZone"
        /// H16.4 `zoneName`.
        open var zoneName: String { fatalError("stand-in") }
        /// H16.4 `ownerName`.
        open var ownerName: String { fatalError("stand-in") }
    }
}

import Foundation

// SI26 ≈39,300–45,600 (Swift overlay of CKRecord), H17.4 CKRecord.h (the Objective-C members' Swift names).

/// `CKRecord`: `@interface CKRecord : NSObject <NSSecureCoding, NSCopying>` (H17.4); Sendable per SI26 ≈39,700.
open class CKRecord: NSObject, @unchecked Sendable {
    /// SI26 ≈44,000.
    public typealias RecordType = String
    /// SI26 ≈44,000.
    public typealias FieldKey = String

    /// SI26 ≈44,900: `convenience public init(recordType:recordID: = CKRecord.ID())`.
    public init(recordType: RecordType, recordID: CKRecord.ID = CKRecord.ID()) { fatalError("stand-in") }
    /// H17.4 `initWithCoder:`; docs `init?(coder: NSCoder)`.
    public init?(coder: NSCoder) { fatalError("stand-in") }

    /// H17.4 `recordID`.
    open var recordID: CKRecord.ID { fatalError("stand-in") }
    /// SI26 ≈45,000.
    open var recordType: RecordType { fatalError("stand-in") }
    /// H17.4 `recordChangeTag` (nullable).
    open var recordChangeTag: String? { fatalError("stand-in") }
    /// H17.4 `creationDate` (nullable).
    open var creationDate: Date? { fatalError("stand-in") }
    /// H17.4 `modificationDate` (nullable).
    open var modificationDate: Date? { fatalError("stand-in") }
    /// H17.4 `creatorUserRecordID` (nullable).
    open var creatorUserRecordID: CKRecord.ID? { fatalError("stand-in") }
    /// H17.4 `lastModifiedUserRecordID` (nullable).
    open var lastModifiedUserRecordID: CKRecord.ID? { fatalError("stand-in") }
    /// H17.4 `parent` (nullable, copy), iOS 10.
    open var parent: CKRecord.Reference? {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
    /// H17.4 `encryptedValues`: `id<CKRecordKeyValueSetting>`, NS_SWIFT_SENDABLE; docs `any CKRecordKeyValueSetting & Sendable`.
    open var encryptedValues: any CKRecordKeyValueSetting & Sendable { fatalError("stand-in") }

    /// SI26 ≈45,100: `public func object(forKey:) -> (any __CKRecordObjCValue)?`.
    public func object(forKey key: FieldKey) -> (any __CKRecordObjCValue)? { fatalError("stand-in") }
    /// SI26 ≈45,200: `public func setObject(_:forKey:)`.
    public func setObject(_ object: (any __CKRecordObjCValue)?, forKey key: FieldKey) { fatalError("stand-in") }
    /// SI26 ≈45,400: `public func allKeys() -> [CKRecord.FieldKey]`.
    public func allKeys() -> [FieldKey] { fatalError("stand-in") }
    /// H17.4 `encodeSystemFieldsWithCoder:`; docs `func encodeSystemFields(with coder: NSCoder)`.
    open func encodeSystemFields(with coder: NSCoder) { fatalError("stand-in") }

    /// `CKRecordID : NSObject <NSSecureCoding, NSCopying>`, NS_SWIFT_SENDABLE (H16.4 CKRecordID.h).
    open class ID: NSObject, @unchecked Sendable {
        /// SI26 ≈45,300: `convenience public init(recordName: = UUID().uuidString, zoneID: = CKRecordZone.ID.default)`.
        public init(recordName: String = UUID().uuidString, zoneID: CKRecordZone.ID = CKRecordZone.ID.default) {
            fatalError("stand-in")
        }
        /// H16.4 `recordName`.
        open var recordName: String { fatalError("stand-in") }
        /// H16.4 `zoneID`.
        open var zoneID: CKRecordZone.ID { fatalError("stand-in") }
    }

    /// H16.4 CKReference.h `CKReferenceAction`; docs `CKRecord.ReferenceAction`.
    public enum ReferenceAction: UInt, Sendable {
        case none = 0
        case deleteSelf = 1
    }

    /// `CKReference : NSObject <NSSecureCoding, NSCopying>`, NS_SWIFT_SENDABLE (H16.4); docs `CKRecord.Reference`.
    open class Reference: NSObject, @unchecked Sendable {
        /// H16.4 `initWithRecordID:action:`; docs `init(recordID:action:)`.
        public init(recordID: CKRecord.ID, action: CKRecord.ReferenceAction) { fatalError("stand-in") }
        /// H16.4 `recordID`.
        open var recordID: CKRecord.ID { fatalError("stand-in") }
        /// docs `var action: CKRecord.ReferenceAction { get }`.
        open var action: CKRecord.ReferenceAction { fatalError("stand-in") }
    }
}

/// The Objective-C protocol `CKRecordValue` (H17.4), whose Swift name `__CKRecordObjCValue` SI26 uses
/// (`public typealias CKRecordValue = CloudKit.__CKRecordObjCValue`, ≈47,300).
public protocol __CKRecordObjCValue: NSObjectProtocol {}
/// H17.4 categories: NSString, NSNumber, NSArray, NSDate, NSData, CKReference adopt `CKRecordValue`.
extension NSString: __CKRecordObjCValue {}
extension NSNumber: __CKRecordObjCValue {}
extension NSArray: __CKRecordObjCValue {}
extension NSDate: __CKRecordObjCValue {}
extension NSData: __CKRecordObjCValue {}
extension CKRecord.Reference: __CKRecordObjCValue {}

/// SI26 ≈47,300: `public protocol CKRecordValueProtocol {}`.
public protocol CKRecordValueProtocol {}
/// SI26 ≈48,000–51,600: the Swift conformers.
extension String: CKRecordValueProtocol {}
extension Date: CKRecordValueProtocol {}
extension Data: CKRecordValueProtocol {}
extension Bool: CKRecordValueProtocol {}
extension Double: CKRecordValueProtocol {}
extension Int64: CKRecordValueProtocol {}
extension NSString: CKRecordValueProtocol {}
extension NSNumber: CKRecordValueProtocol {}
extension NSArray: CKRecordValueProtocol {}
extension CKRecord.Reference: CKRecordValueProtocol {}

/// docs: `protocol CKRecordKeyValueSetting : NSObjectProtocol` with `allKeys() -> [String]`.
public protocol CKRecordKeyValueSetting: NSObjectProtocol {
    func allKeys() -> [String]
}

/// SI26 ≈47,600: the non-generic subscript of the protocol extension.
extension CKRecordKeyValueSetting {
    public subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
}

// CloudKit's own name for it, which the stand-in must spell as CloudKit does.
// swift-format-ignore: AlwaysUseLowerCamelCase
/// H16.4 CKContainer.h: `CK_EXTERN NSString * const CKCurrentUserDefaultName`.
public let CKCurrentUserDefaultName = "__defaultOwner__"

import Foundation

/// `CKDatabase : NSObject`, NS_SWIFT_SENDABLE (H17.0).
open class CKDatabase: NSObject, @unchecked Sendable {
    /// H17.0 `fetchRecordWithID:completionHandler:` (NS_SWIFT_ASYNC_NAME record(for:)).
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord { fatalError("stand-in") }

    /// SI26 ≈20,000: `modifyRecords(saving:deleting:savePolicy:atomically:)`.
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> (
        saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]
    ) { fatalError("stand-in") }

    /// H17.0 `saveRecordZone:completionHandler:` (NS_SWIFT_ASYNC_NAME save(_:)).
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone { fatalError("stand-in") }
    /// H17.0 `deleteRecordZoneWithID:completionHandler:`; docs `deleteRecordZone(withID:) async throws -> CKRecordZone.ID`.
    @discardableResult
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        fatalError("stand-in")
    }
    /// H17.0 `fetchAllRecordZonesWithCompletionHandler:` (NS_SWIFT_ASYNC_NAME allRecordZones()).
    public func allRecordZones() async throws -> [CKRecordZone] { fatalError("stand-in") }

    /// SI26 ≈28,700–35,500: the database-change types.
    public enum DatabaseChange {
        public struct Modification: Sendable {
            public var zoneID: CKRecordZone.ID { fatalError("stand-in") }
        }
        public struct Deletion: Sendable {
            public var zoneID: CKRecordZone.ID { fatalError("stand-in") }
            public var reason: Reason { fatalError("stand-in") }
            public enum Reason: Sendable, Equatable {
                case deleted
                case purged
                case encryptedDataReset
            }
        }
    }

    /// SI26 ≈32,050: the record-zone-change types.
    public enum RecordZoneChange {
        public struct Modification: Sendable {
            public var record: CKRecord { fatalError("stand-in") }
        }
        public struct Deletion: Sendable {
            public var recordID: CKRecord.ID { fatalError("stand-in") }
            public var recordType: CKRecord.RecordType { fatalError("stand-in") }
        }
    }
}

/// `CKModifyRecordsOperation.RecordSavePolicy` (docs; `CKRecordSavePolicy` in CKModifyRecordsOperation.h).
open class CKModifyRecordsOperation: NSObject {
    public enum RecordSavePolicy: Int, Sendable {
        case ifServerRecordUnchanged = 0
        case changedKeys = 1
        case allKeys = 2
    }
}

/// SI26 ≈64,600: `extension CKSubscription { public typealias ID = String }`.
open class CKSubscription: NSObject {
    public typealias ID = String
}

/// `CKOperationGroup : NSObject <NSSecureCoding>` (H16.4); Sendable per SI26 ≈89,000.
open class CKOperationGroup: NSObject, @unchecked Sendable {
    /// H16.4 `name` (atomic, copy, nullable).
    open var name: String? {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
}

import Foundation

// SI26 ≈89,150–108,595: CKSyncEngine and everything nested in it, as the bridge uses it.

/// SI26 ≈89,150.
final public class CKSyncEngine: Sendable {
    public init(_ configuration: CKSyncEngine.Configuration) { fatalError("stand-in") }
    final public var state: CKSyncEngine.State { fatalError("stand-in") }
    final public func fetchChanges(_ options: CKSyncEngine.FetchChangesOptions = .init()) async throws {
        fatalError("stand-in")
    }
    final public func sendChanges(_ options: CKSyncEngine.SendChangesOptions = .init()) async throws {
        fatalError("stand-in")
    }
    final public func cancelOperations() async { fatalError("stand-in") }
}

extension CKSyncEngine {
    /// SI26 ≈90,400.
    public struct Configuration: Sendable {
        public var database: CKDatabase
        public var stateSerialization: CKSyncEngine.State.Serialization?
        public var delegate: any CKSyncEngineDelegate
        public var automaticallySync: Bool
        public var subscriptionID: CKSubscription.ID?
        public init(
            database: CKDatabase, stateSerialization: CKSyncEngine.State.Serialization?,
            delegate: any CKSyncEngineDelegate
        ) { fatalError("stand-in") }
    }

    /// SI26 ≈92,450.
    public enum Event: Sendable {
        case stateUpdate(CKSyncEngine.Event.StateUpdate)
        case accountChange(CKSyncEngine.Event.AccountChange)
        case fetchedDatabaseChanges(CKSyncEngine.Event.FetchedDatabaseChanges)
        case fetchedRecordZoneChanges(CKSyncEngine.Event.FetchedRecordZoneChanges)
        case sentDatabaseChanges(CKSyncEngine.Event.SentDatabaseChanges)
        case sentRecordZoneChanges(CKSyncEngine.Event.SentRecordZoneChanges)
        case willFetchChanges(CKSyncEngine.Event.WillFetchChanges)
        case willFetchRecordZoneChanges(CKSyncEngine.Event.WillFetchRecordZoneChanges)
        case didFetchRecordZoneChanges(CKSyncEngine.Event.DidFetchRecordZoneChanges)
        case didFetchChanges(CKSyncEngine.Event.DidFetchChanges)
        case willSendChanges(CKSyncEngine.Event.WillSendChanges)
        case didSendChanges(CKSyncEngine.Event.DidSendChanges)
    }

    /// SI26 ≈100,700: `@_hasMissingDesignatedInitializers final public class State : Sendable`.
    final public class State: Sendable {
        final public var pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange] { fatalError("stand-in") }
        final public var pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange] { fatalError("stand-in") }
        final public var hasPendingUntrackedChanges: Bool {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
        final public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] { fatalError("stand-in") }
        final public func add(pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange]) {
            fatalError("stand-in")
        }
        final public func remove(pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange]) {
            fatalError("stand-in")
        }
        final public func add(pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange]) { fatalError("stand-in") }
        final public func remove(pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange]) {
            fatalError("stand-in")
        }

        public struct Serialization: Codable, Sendable {
            public func encode(to encoder: any Encoder) throws { fatalError("stand-in") }
            public init(from decoder: any Decoder) throws { fatalError("stand-in") }
        }
    }

    /// SI26 ≈102,500.
    public enum PendingRecordZoneChange: Sendable, Hashable {
        case saveRecord(CKRecord.ID)
        case deleteRecord(CKRecord.ID)
    }

    /// SI26 ≈102,600.
    public enum PendingDatabaseChange: Sendable, Hashable {
        case saveZone(CKRecordZone)
        case deleteZone(CKRecordZone.ID)
    }

    /// SI26 ≈99,800.
    public struct RecordZoneChangeBatch: Sendable {
        public var recordsToSave: [CKRecord]
        public var recordIDsToDelete: [CKRecord.ID]
        public var atomicByZone: Bool
        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            fatalError("stand-in")
        }
    }

    /// SI26 ≈103,300.
    public struct FetchChangesOptions: Sendable {
        public var scope: CKSyncEngine.FetchChangesOptions.Scope {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
        public var operationGroup: CKOperationGroup {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
        public var prioritizedZoneIDs: [CKRecordZone.ID]
        public enum Scope: Sendable {
            case all
            case allExcluding([CKRecordZone.ID])
            case zoneIDs([CKRecordZone.ID])
        }
        public init(scope: CKSyncEngine.FetchChangesOptions.Scope = .all, operationGroup: CKOperationGroup? = nil) {
            fatalError("stand-in")
        }
    }

    /// SI26 ≈104,000.
    public struct FetchChangesContext: Sendable {
        public let reason: CKSyncEngine.SyncReason
        public let options: CKSyncEngine.FetchChangesOptions
    }

    /// SI26 ≈104,200.
    public struct SendChangesOptions: Sendable {
        public var scope: CKSyncEngine.SendChangesOptions.Scope {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
        public var operationGroup: CKOperationGroup {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
        public enum Scope: Sendable {
            case all
            case allExcluding([CKRecordZone.ID])
            case zoneIDs([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])
        }
        public init(scope: CKSyncEngine.SendChangesOptions.Scope = .all, operationGroup: CKOperationGroup? = nil) {
            fatalError("stand-in")
        }
    }

    /// SI26 ≈105,000.
    public struct SendChangesContext: Sendable {
        public let reason: CKSyncEngine.SyncReason
        public let options: CKSyncEngine.SendChangesOptions
    }

    /// SI26 ≈105,200.
    public enum SyncReason: Sendable, Hashable {
        case scheduled
        case manual
    }
}

// SI26 ≈93,600–96,400: the payloads, `public let` properties and no public initializer.
extension CKSyncEngine.Event {
    public struct StateUpdate: Sendable {
        public let stateSerialization: CKSyncEngine.State.Serialization
    }
    public struct AccountChange: Sendable {
        public let changeType: CKSyncEngine.Event.AccountChange.ChangeType
        public enum ChangeType: Sendable {
            case signIn(currentUser: CKRecord.ID)
            case signOut(previousUser: CKRecord.ID)
            case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
        }
    }
    public struct FetchedDatabaseChanges: Sendable {
        public let modifications: [CKDatabase.DatabaseChange.Modification]
        public let deletions: [CKDatabase.DatabaseChange.Deletion]
    }
    public struct FetchedRecordZoneChanges: Sendable {
        public let modifications: [CKDatabase.RecordZoneChange.Modification]
        public let deletions: [CKDatabase.RecordZoneChange.Deletion]
    }
    public struct SentDatabaseChanges: Sendable {
        public let savedZones: [CKRecordZone]
        public let failedZoneSaves: [CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave]
        public let deletedZoneIDs: [CKRecordZone.ID]
        public let failedZoneDeletes: [CKRecordZone.ID: CKError]
        public struct FailedZoneSave: Sendable {
            public let zone: CKRecordZone
            public let error: CKError
        }
    }
    public struct SentRecordZoneChanges: Sendable {
        public let savedRecords: [CKRecord]
        public let failedRecordSaves: [CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave]
        public let deletedRecordIDs: [CKRecord.ID]
        public let failedRecordDeletes: [CKRecord.ID: CKError]
        public struct FailedRecordSave: Sendable {
            public let record: CKRecord
            public let error: CKError
        }
    }
    public struct WillFetchChanges: Sendable {
        public let context: CKSyncEngine.FetchChangesContext
    }
    public struct WillFetchRecordZoneChanges: Sendable {
        public let zoneID: CKRecordZone.ID
    }
    public struct DidFetchRecordZoneChanges: Sendable {
        public let zoneID: CKRecordZone.ID
        public let error: CKError?
    }
    public struct DidFetchChanges: Sendable {
        public let context: CKSyncEngine.FetchChangesContext
    }
    public struct WillSendChanges: Sendable {
        public let context: CKSyncEngine.SendChangesContext
    }
    public struct DidSendChanges: Sendable {
        public let context: CKSyncEngine.SendChangesContext
    }
}

/// SI26 ≈91,350.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async
    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async
        -> CKSyncEngine.RecordZoneChangeBatch?
    func nextFetchChangesOptions(
        _ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine
    ) async
        -> CKSyncEngine.FetchChangesOptions
}

/// What a modify request did to each record, as CloudKit's `modifyRecords(saving:deleting:…)` returns it.
public struct ModifyResult: Sendable {
    /// For each record asked to be saved: the record as saved (new change tag and dates), or its error.
    public var saveResults: [RecordID: Result<Record, CloudError>]
    /// For each record asked to be deleted: success, or its error.
    public var deleteResults: [RecordID: Result<Void, CloudError>]

    /// Creates a result.
    public init(
        saveResults: [RecordID: Result<Record, CloudError>] = [:],
        deleteResults: [RecordID: Result<Void, CloudError>] = [:]
    ) {
        self.saveResults = saveResults
        self.deleteResults = deleteResults
    }

    /// The per-item errors wrapped in a `partialFailure`, as `CKModifyRecordsOperation` reports them; `nil` when
    /// every item succeeded.
    public var partialFailure: CloudError? {
        var errors: [CloudError.ItemID: CloudError] = [:]
        for (id, result) in saveResults {
            if case .failure(let error) = result { errors[.record(id)] = error }
        }
        for (id, result) in deleteResults {
            if case .failure(let error) = result { errors[.record(id)] = error }
        }
        return errors.isEmpty ? nil : .partialFailure(errors)
    }

    /// The records saved, in no particular order.
    public var savedRecords: [Record] {
        saveResults.values.compactMap { try? $0.get() }
    }

    /// The identifiers deleted.
    public var deletedRecordIDs: [RecordID] {
        deleteResults.compactMap { id, result in (try? result.get()) != nil ? id : nil }
    }
}

/// One page of a zone's changes, as `recordZoneChanges(inZoneWith:since:…)` returns it.
public struct RecordZoneChanges: Sendable {
    /// A deleted record: its identifier and type.
    public struct Deletion: Hashable, Sendable {
        /// The deleted record's identifier.
        public let recordID: RecordID
        /// The deleted record's type.
        public let recordType: String
    }

    /// Records created or changed since the token, in the order they changed.
    public var modifications: [Record]
    /// Records deleted since the token.
    public var deletions: [Deletion]
    /// The token for everything in this page; pass it to fetch the next.
    public var changeToken: ChangeToken
    /// Whether more changes wait beyond this page.
    public var moreComing: Bool

    /// A page, as a container or a test double hands it back.
    ///
    /// - Parameters:
    ///   - modifications: Records created or changed since the token, in the order they changed.
    ///   - deletions: Records deleted since the token.
    ///   - changeToken: The token for everything in the page.
    ///   - moreComing: Whether more changes wait beyond the page.
    public init(modifications: [Record], deletions: [Deletion], changeToken: ChangeToken, moreComing: Bool) {
        self.modifications = modifications
        self.deletions = deletions
        self.changeToken = changeToken
        self.moreComing = moreComing
    }
}

/// One page of a database's zone changes, as `databaseChanges(since:)` returns it.
public struct DatabaseChanges: Sendable {
    /// Why a zone is gone.
    public enum DeletionReason: String, Sendable, Hashable {
        /// The app deleted it.
        case deleted
        /// The user deleted the app's data in iCloud settings; calls on it fail with `userDeletedZone` until an
        /// app creates it again.
        case purged
        /// The account's encrypted data was reset (its keys replaced): the zone was purged, and calls on it fail
        /// with `zoneNotFound` until an app creates it again. CKSyncEngine reports it as `.encryptedDataReset`.
        case encryptedDataReset
    }

    /// A zone that was deleted.
    public struct Deletion: Hashable, Sendable {
        /// The deleted zone.
        public let zoneID: ZoneID
        /// Why it is gone.
        public let reason: DeletionReason
    }

    /// Zones created, or holding changed records, since the token (never the default zone).
    public var modifiedZoneIDs: [ZoneID]
    /// Zones deleted since the token.
    public var deletions: [Deletion]
    /// The token for everything in this page.
    public var changeToken: ChangeToken
    /// Whether more changes wait beyond this page.
    public var moreComing: Bool
}

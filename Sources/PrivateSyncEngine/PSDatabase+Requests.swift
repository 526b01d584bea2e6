extension PSDatabase {
    /// Fetches a record, as `CKDatabase.record(for:)`.
    ///
    /// - Parameter recordID: The record's identifier.
    /// - Returns: The record as the server holds it.
    /// - Throws: ``PSError``: `unknownItem` when there is no such record, `zoneNotFound`, `userDeletedZone`, or any
    ///   error of the request (the account, the network).
    public func record(for recordID: PSRecord.ID) async throws(PSError) -> PSRecord {
        if let forwarded { return try await forwarded.record(for: recordID) }
        try Self.checkOwner(recordID.zoneID)
        do {
            return PSRecord(try await container.record(for: recordID.containerRecordID))
        } catch {
            throw PSError(error)
        }
    }

    /// Saves a record, as `CKDatabase.save(_:)`: with the default policy, so a stale change tag fails with
    /// `serverRecordChanged`.
    ///
    /// - Parameter record: The record.
    /// - Returns: The record as saved (a new object, with the server's system fields).
    /// - Throws: ``PSError``: the record's own error (`serverRecordChanged`, `zoneNotFound`, `limitExceeded` …), or
    ///   any error of the request.
    @discardableResult
    public func save(_ record: PSRecord) async throws(PSError) -> PSRecord {
        let results = try await modifyRecords(saving: [record], deleting: [])
        guard let result = results.saveResults[record.recordID] else {
            throw PSError(.internalError, "no result for \(record.recordID)")
        }
        return try result.get()
    }

    /// Deletes a record, as `CKDatabase.deleteRecord(withID:)`.
    ///
    /// - Parameter recordID: The record's identifier.
    /// - Returns: The identifier.
    /// - Throws: ``PSError``: `unknownItem` when there is no such record, or any error of the request.
    @discardableResult
    public func deleteRecord(withID recordID: PSRecord.ID) async throws(PSError) -> PSRecord.ID {
        let results = try await modifyRecords(saving: [], deleting: [recordID])
        guard let result = results.deleteResults[recordID] else {
            throw PSError(.internalError, "no result for \(recordID)")
        }
        try result.get()
        return recordID
    }

    /// Saves and deletes records in one request, as `CKDatabase.modifyRecords(saving:deleting:savePolicy:atomically:)`.
    ///
    /// - Parameters:
    ///   - recordsToSave: The records to save.
    ///   - recordIDsToDelete: The records to delete.
    ///   - savePolicy: How saves treat the server's version; the default compares change tags.
    ///   - atomically: In custom zones, whether one failing item fails every item of its zone (with
    ///     `batchRequestFailed`).
    /// - Returns: Each item's outcome: the saved record (a new object) or its error.
    /// - Throws: ``PSError`` for the request as a whole: `limitExceeded` past CloudKit's limits, `invalidArguments`
    ///   for an item named twice, and any account or network error.
    public func modifyRecords(
        saving recordsToSave: [PSRecord], deleting recordIDsToDelete: [PSRecord.ID],
        savePolicy: SavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws(PSError) -> (
        saveResults: [PSRecord.ID: Result<PSRecord, PSError>], deleteResults: [PSRecord.ID: Result<Void, PSError>]
    ) {
        if let forwarded {
            return try await forwarded.modifyRecords(
                saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically)
        }
        for record in recordsToSave { try Self.checkOwner(record.recordID.zoneID) }
        for id in recordIDsToDelete { try Self.checkOwner(id.zoneID) }
        let result: ModifyResult
        do {
            result = try await container.modifyRecords(
                saving: recordsToSave.map(\.containerRecord),
                deleting: recordIDsToDelete.map(\.containerRecordID), savePolicy: savePolicy,
                atomically: atomically)
        } catch {
            throw PSError(error)
        }
        var saves: [PSRecord.ID: Result<PSRecord, PSError>] = [:]
        for (id, outcome) in result.saveResults {
            saves[PSRecord.ID(id)] = outcome.map(PSRecord.init).mapError(PSError.init)
        }
        var deletes: [PSRecord.ID: Result<Void, PSError>] = [:]
        for (id, outcome) in result.deleteResults {
            deletes[PSRecord.ID(id)] = outcome.mapError(PSError.init)
        }
        return (saves, deletes)
    }

    /// Creates a zone, as `CKDatabase.save(_:)` for a zone; one that exists already is returned as it is.
    ///
    /// - Parameter zone: The zone.
    /// - Returns: The zone as saved.
    /// - Throws: ``PSError``: `invalidArguments` for the default zone or a name CloudKit refuses, `limitExceeded`
    ///   past 1000 zones, or any error of the request.
    @discardableResult
    public func save(_ zone: PSRecordZone) async throws(PSError) -> PSRecordZone {
        if let forwarded { return try await forwarded.save(zone) }
        try Self.checkOwner(zone.zoneID)
        do {
            let saved = try await container.saveZones([RecordZone(zoneID: zone.zoneID.containerZoneID)])
            return saved.first.map { PSRecordZone(zoneID: PSRecordZone.ID($0.zoneID)) } ?? zone
        } catch {
            throw PSError(error)
        }
    }

    /// Deletes a zone and every record in it, as `CKDatabase.deleteRecordZone(withID:)`: the app's deletion, which
    /// other devices learn of as a deletion with reason `deleted`.
    ///
    /// - Parameter zoneID: The zone.
    /// - Returns: The identifier.
    /// - Throws: ``PSError``: `zoneNotFound` when there is no such zone, `invalidArguments` for the default zone, or
    ///   any error of the request.
    @discardableResult
    public func deleteRecordZone(withID zoneID: PSRecordZone.ID) async throws(PSError) -> PSRecordZone.ID {
        if let forwarded {
            try await forwarded.deleteRecordZone(withID: zoneID)
            return zoneID
        }
        try Self.checkOwner(zoneID)
        do {
            try await container.deleteZones([zoneID.containerZoneID])
        } catch {
            throw PSError(error)
        }
        return zoneID
    }

    /// Every zone of the database, the default zone first, as `CKDatabase.allRecordZones()`.
    ///
    /// - Returns: The zones.
    /// - Throws: ``PSError`` for any error of the request.
    public func allRecordZones() async throws(PSError) -> [PSRecordZone] {
        if let forwarded { return try await forwarded.allRecordZones() }
        do {
            return try await container.allZones().map { PSRecordZone(zoneID: PSRecordZone.ID($0.zoneID)) }
        } catch {
            throw PSError(error)
        }
    }

    /// Refuses a zone of another owner: this fake has no shared database.
    static func checkOwner(_ zoneID: PSRecordZone.ID) throws(PSError) {
        guard zoneID.isOwnedByCurrentUser else {
            throw PSError(
                .invalidArguments,
                "zone \(zoneID.zoneName) belongs to \(zoneID.ownerName): a private database holds the signed-in "
                    + "user's zones only (owner \(PSRecordZone.ID.currentUserDefaultName)); shared databases are "
                    + "not modelled")
        }
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state of one modify request while it is applied: its sequence numbers, and the record-type schemas read.
struct ModifyRequest<Storage: DatabaseStorage> {
    let database: PrivateDatabase<Storage>
    let policy: SavePolicy
    let user: UserRecordID
    let now: Date
    var nextSequence: Int64 = 0
    private var schemas: [String: [String: FieldType]] = [:]
    /// The fields (key and value type, sorted) of the last record found to fit its type's schema without adding a
    /// field: a record of the same type and shape, as the records of one request nearly always are, fits too,
    /// without a look-up per field (`make bench`, `container_save_ratio`).
    private var knownShape: (recordType: String, keys: [String], typeCodes: [UInt8])?
    /// The last record type found to be a valid name.
    private var checkedRecordType: String?
    /// What every change tag of the database starts with, once read.
    private var changeTagPrefix: [UInt8]?

    init(database: PrivateDatabase<Storage>, policy: SavePolicy, user: UserRecordID, now: Date) {
        self.database = database
        self.policy = policy
        self.user = user
        self.now = now
    }

    private var storage: Storage { database.storage }

    /// Thrown inside a zone's savepoint to undo the zone's changes after an item failed.
    private struct RollBackZone: Error {}

    /// Applies the items of one zone.
    mutating func apply(
        zone zoneID: ZoneID, saves: [PendingSave], deletes: [RecordID], atomically: Bool,
        into result: inout ModifyResult
    ) throws {
        guard let zone = try storage.zone(named: zoneID.zoneName) else {
            let error = try database.missingZoneError(zoneID)
            for save in saves { result.saveResults[save.record.recordID] = .failure(error) }
            for id in deletes { result.deleteResults[id] = .failure(error) }
            return
        }
        // Every item of the zone names it: its name is checked once.
        let zoneProblem =
            zoneID.isDefault ? nil : CloudKitNames.problem(withRecordName: zoneID.zoneName, kind: "zone name")
        var lastApplied: Int64?
        var anyFailed = false
        let atomic = atomically && zone.capabilities.contains(.atomic)
        // Outcomes go straight into the result (each copied once): should an item throw, the whole request fails
        // and the result is dropped.
        func runItems(_ request: inout ModifyRequest, _ result: inout ModifyResult) throws {
            for index in saves.indices {
                let sequence = request.takeSequence()
                let outcome = try request.save(saves[index], zoneProblem: zoneProblem, sequence: sequence)
                if case .success = outcome { lastApplied = sequence } else { anyFailed = true }
                result.saveResults[saves[index].record.recordID] = outcome
            }
            for id in deletes {
                let sequence = request.takeSequence()
                let outcome = try request.delete(id, zoneProblem: zoneProblem, sequence: sequence)
                if case .success = outcome { lastApplied = sequence } else { anyFailed = true }
                result.deleteResults[id] = outcome
            }
        }
        if atomic {
            do {
                var copy = self
                try storage.savepoint {
                    try runItems(&copy, &result)
                    if anyFailed { throw RollBackZone() }
                }
                self = copy
            } catch is RollBackZone {
                // The zone's changes are undone: items that had succeeded fail with batchRequestFailed.
                schemas = [:]
                knownShape = nil
                lastApplied = nil
                let batchFailed = CloudError(
                    .batchRequestFailed, "not applied: another item in the atomic batch for zone \(zone.name) failed")
                for save in saves where result.saveResults[save.record.recordID]?.isSuccess == true {
                    result.saveResults[save.record.recordID] = .failure(batchFailed)
                }
                for id in deletes where result.deleteResults[id]?.isSuccess == true {
                    result.deleteResults[id] = .failure(batchFailed)
                }
            }
        } else {
            try runItems(&self, &result)
        }
        if let lastApplied { try storage.touchZone(named: zone.name, sequence: lastApplied) }
    }

    private mutating func takeSequence() -> Int64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    // MARK: Saving

    private mutating func save(
        _ pending: PendingSave, zoneProblem: String?, sequence: Int64
    ) throws -> Result<Record, CloudError> {
        let record = pending.record
        let fields = pending.encoded
        if let error = validate(
            record, zoneProblem: zoneProblem, fieldCount: record.fields.count,
            valueProblem: Self.valueProblem(pending.sortedFields), encodedSize: fields.count)
        {
            return .failure(error)
        }
        let schema = try schema(of: record.recordType)
        var newFields = 0
        if let error = schemaError(record, sortedFields: pending.sortedFields, schema: schema, newFields: &newFields) {
            return .failure(error)
        }
        let id = record.recordID
        let tag = try changeTag(sequence)
        func row(_ encoded: [UInt8]) -> RecordRow {
            RecordRow(
                zone: id.zoneID.zoneName, name: id.recordName, recordType: record.recordType, encodedFields: encoded,
                changeTag: tag, sequence: sequence, date: now, user: user)
        }
        var written = record.fields
        let creation: (Date, UserRecordID)
        switch policy {
        case .ifServerRecordUnchanged:
            if let expected = record.recordChangeTag {
                var encoded = fields
                if record.uploadsChangedKeysOnly {
                    // The changed keys go onto the server's version the record is based on; its other keys stay.
                    guard let server = try storage.record(in: id.zoneID.zoneName, named: id.recordName),
                        server.recordChangeTag == expected
                    else {
                        return .failure(try conflict(for: record, expectedTag: expected))
                    }
                    written = server.fields
                    for key in record.changedKeys { written[key] = record[key] }
                    encoded = FieldsJSON.encode(written)
                    if let error = validate(
                        record, zoneProblem: zoneProblem, fieldCount: written.count,
                        valueProblem: Self.valueProblem(written), encodedSize: encoded.count)
                    {
                        return .failure(error)
                    }
                }
                guard let updated = try storage.updateRecord(row(encoded), expectedChangeTag: expected) else {
                    return .failure(try conflict(for: record, expectedTag: expected))
                }
                creation = updated
            } else {
                guard try storage.insertRecord(row(fields)) else {
                    return .failure(try conflict(for: record, expectedTag: nil))
                }
                creation = (now, user)
            }
        case .changedKeys, .allKeys:
            if let server = try storage.record(in: id.zoneID.zoneName, named: id.recordName) {
                if server.recordType != record.recordType { return .failure(typeMismatch(record, server)) }
                if policy == .changedKeys {
                    written = server.fields
                    for key in record.changedKeys { written[key] = record[key] }
                }
                let encoded = policy == .changedKeys ? FieldsJSON.encode(written) : fields
                // Merged with the server's fields, the record may now be too large or hold too many fields.
                if policy == .changedKeys,
                    let error = validate(
                        record, zoneProblem: zoneProblem, fieldCount: written.count,
                        valueProblem: Self.valueProblem(written), encodedSize: encoded.count)
                {
                    return .failure(error)
                }
                guard let updated = try storage.updateRecord(row(encoded), expectedChangeTag: nil) else {
                    throw CloudError(.internalError, "record \(id) vanished inside its own transaction")
                }
                creation = updated
            } else {
                guard try storage.insertRecord(row(fields)) else {
                    throw CloudError(.internalError, "record \(id) appeared inside its own transaction")
                }
                creation = (now, user)
            }
        }
        // The fields written are the record's and the server's; only the record's can be new to the schema.
        if newFields > 0 { try addNewFields(of: written, to: record.recordType, schema: schema) }
        var saved = Record(
            recordID: id, recordType: record.recordType, fields: written,
            systemFields: SystemFields(
                changeTag: tag, creationDate: creation.0, modificationDate: now, creatorUserRecordID: creation.1,
                lastModifiedUserRecordID: user))
        saved.clearChangeTracking()
        return .success(saved)
    }

    /// The change tag of the save at `sequence`.
    private mutating func changeTag(_ sequence: Int64) throws -> String {
        let prefix: [UInt8]
        if let known = changeTagPrefix {
            prefix = known
        } else {
            prefix = PrivateDatabase<Storage>.changeTagPrefix(databaseID: try storage.databaseID())
            changeTagPrefix = prefix
        }
        return PrivateDatabase<Storage>.changeTag(prefix: prefix, sequence: sequence)
    }

    private func conflict(for record: Record, expectedTag: String?) throws -> CloudError {
        let id = record.recordID
        guard let server = try storage.record(in: id.zoneID.zoneName, named: id.recordName) else {
            return CloudError(
                .unknownItem,
                "record \(id) no longer exists on the server: it was deleted after change tag \(expectedTag ?? "?")")
        }
        if server.recordType != record.recordType { return typeMismatch(record, server) }
        var error = CloudError(
            .serverRecordChanged,
            expectedTag == nil
                ? "record to insert already exists: \(id)"
                : "record \(id) changed on the server (tag \(server.recordChangeTag ?? "?"), client had "
                    + "\(expectedTag!)); merge into the server record and save again")
        error.serverRecord = server
        error.clientRecord = record
        error.ancestorRecord = record.ancestor
        return error
    }

    private func typeMismatch(_ record: Record, _ server: Record) -> CloudError {
        CloudError(
            .invalidArguments,
            "record \(record.recordID) is a \(server.recordType) on the server; it cannot be saved as a \(record.recordType)"
        )
    }

    /// Why `record` (or `values`, what will be written of it) cannot be saved, if it cannot: its ID, its type's
    /// name, its field count, a value, its encoded size.
    ///
    /// Field keys are checked where they are new to the record type (in `schemaError`): a key the type already has
    /// passed that check when it was added, and every key written is either the record's or already the server's.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - zoneProblem: What is wrong with its zone's name, checked once for the zone's items.
    ///   - fieldCount: How many fields will be written.
    ///   - valueProblem: The first field to be written whose value CloudKit refuses, and why.
    ///   - encodedSize: Their encoded size.
    private mutating func validate(
        _ record: Record, zoneProblem: String?, fieldCount: Int, valueProblem: (key: String, problem: String)?,
        encodedSize: Int
    ) -> CloudError? {
        let id = record.recordID
        if let problem = CloudKitNames.problem(withRecordName: id.recordName) ?? zoneProblem {
            return CloudError(.invalidArguments, problem)
        }
        if record.recordType != checkedRecordType {
            if let problem = CloudKitNames.problem(withIdentifier: record.recordType, kind: "record type") {
                return CloudError(.invalidArguments, "record \(id.recordName): \(problem)")
            }
            checkedRecordType = record.recordType
        }
        if fieldCount > database.limits.maximumFieldsPerRecordType {
            return CloudError(
                .limitExceeded,
                "record \(id.recordName) has \(fieldCount) fields; a record type may have at most "
                    + "\(database.limits.maximumFieldsPerRecordType)")
        }
        if let (key, problem) = valueProblem {
            return CloudError(.invalidArguments, "record \(id.recordName), field \(key): \(problem)")
        }
        if encodedSize > database.limits.maximumRecordBytes {
            return CloudError(
                .limitExceeded,
                "record \(id.recordName) is \(encodedSize) bytes encoded; a record may hold at most "
                    + "\(database.limits.maximumRecordBytes)")
        }
        return nil
    }

    /// The first field whose value CloudKit refuses, and why.
    private static func valueProblem(_ fields: [FieldsJSON.Field]) -> (key: String, problem: String)? {
        for index in fields.indices where !fields[index].value.isAlwaysAcceptable {
            if let problem = fields[index].value.problem { return (fields[index].key, problem) }
        }
        return nil
    }

    /// The first field (in no particular order) whose value CloudKit refuses, and why.
    private static func valueProblem(_ fields: [String: FieldValue]) -> (key: String, problem: String)? {
        for (key, value) in fields {
            if let problem = value.problem { return (key, problem) }
        }
        return nil
    }

    // MARK: Record-type schemas

    private mutating func schema(of recordType: String) throws -> [String: FieldType] {
        if let cached = schemas[recordType] { return cached }
        var loaded = try storage.fieldTypes(of: recordType)
        // A deployed field's type is the deployed one, whatever a save wrote before the schema was deployed.
        if let deployed = database.deployed.fieldTypes[recordType] {
            loaded.merge(deployed) { _, deployed in deployed }
        }
        schemas[recordType] = loaded
        return loaded
    }

    /// Why `record` cannot be saved as its type's `schema` stands, if it cannot: a field key that is not a valid
    /// identifier (checked here, for keys new to the type), a value of another type than the field's, or too many
    /// fields. Counts the fields new to the type.
    private mutating func schemaError(
        _ record: Record, sortedFields: [FieldsJSON.Field], schema: [String: FieldType],
        newFields: inout Int
    ) -> CloudError? {
        let recordType = record.recordType
        newFields = 0
        if let known = knownShape, known.recordType == recordType, known.keys.count == sortedFields.count,
            sortedFields.indices.allSatisfy({
                known.keys[$0] == sortedFields[$0].key && known.typeCodes[$0] == sortedFields[$0].value.typeCode
            })
        {
            return nil
        }
        for field in sortedFields {
            let key = field.key
            let value = field.value
            if let existing = schema[key] {
                if !existing.accepts(value) {
                    return CloudError(
                        .invalidArguments,
                        "field \(key) of record type \(recordType) holds \(existing.name) values; "
                            + "\(value.type?.name ?? "an empty list") cannot be saved in it")
                }
            } else {
                if let problem = CloudKitNames.problem(withIdentifier: key, kind: "field key") {
                    return CloudError(.invalidArguments, "record \(record.recordID.recordName): \(problem)")
                }
                newFields += 1
            }
        }
        if schema.count + newFields > database.limits.maximumFieldsPerRecordType {
            return CloudError(
                .limitExceeded,
                "record type \(recordType) would have \(schema.count + newFields) fields; at most "
                    + "\(database.limits.maximumFieldsPerRecordType) are allowed")
        }
        // A shape of scalar fields is remembered (a list's type depends on its elements, so a list is checked each
        // time).
        let typeCodes = sortedFields.map(\.value.typeCode)
        if newFields == 0 && !typeCodes.contains(FieldValue.listTypeCode) {
            knownShape = (recordType, sortedFields.map(\.key), typeCodes)
        }
        return nil
    }

    private mutating func addNewFields(
        of fields: [String: FieldValue], to recordType: String, schema: [String: FieldType]
    )
        throws
    {
        var added: [String: FieldType] = [:]
        for (key, value) in fields where schema[key] == nil {
            // An empty list says nothing of its element type; the field's type is fixed by its first non-empty value.
            if let type = value.type { added[key] = type }
        }
        guard !added.isEmpty else { return }
        try storage.addFieldTypes(added, to: recordType)
        schemas[recordType] = schema.merging(added) { old, _ in old }
    }

    // MARK: Deleting

    private mutating func delete(
        _ id: RecordID, zoneProblem: String?, sequence: Int64
    ) throws -> Result<Void, CloudError> {
        if let problem = CloudKitNames.problem(withRecordName: id.recordName) ?? zoneProblem {
            return .failure(CloudError(.invalidArguments, problem))
        }
        guard try storage.deleteRecord(in: id.zoneID.zoneName, named: id.recordName, sequence: sequence, at: now) != nil
        else {
            return .failure(CloudError(.unknownItem, "record \(id) does not exist, so it cannot be deleted"))
        }
        return .success(())
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

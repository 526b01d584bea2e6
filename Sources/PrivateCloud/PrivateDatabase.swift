#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// CloudKit's semantics for one account's private database, written once over any ``DatabaseStorage``.
///
/// The caller serializes access (one call at a time per storage object); storages that several processes share
/// (SQLite files) add their own locking underneath.
struct PrivateDatabase<Storage: DatabaseStorage> {
    let storage: Storage
    let limits: CloudLimits
    let clock: any WallClock
    /// The types no save may change.
    var deployed: DeployedSchema = .none

    // MARK: Zones

    func saveZones(_ zones: [RecordZone]) throws(CloudError) -> [RecordZone] {
        try run(write: true) {
            var created: [StoredZone] = []
            var saved: [RecordZone] = []
            let existing = try storage.zones()
            var customCount = existing.count { !$0.name.isDefaultZoneName }
            let base = try storage.reserveSequence(max(zones.count, 1))
            for (offset, zone) in zones.enumerated() {
                if let problem = Self.problem(withZoneID: zone.zoneID) { throw CloudError(.invalidArguments, problem) }
                let name = zone.zoneID.zoneName
                if let found = existing.first(where: { $0.name == name }) ?? created.first(where: { $0.name == name }) {
                    saved.append(found.recordZone)
                    continue
                }
                customCount += 1
                guard customCount <= limits.maximumZones else {
                    throw CloudError(
                        .limitExceeded,
                        "creating zone \(name) would exceed \(limits.maximumZones) zones in this database")
                }
                let sequence = base + Int64(offset)
                let stored = StoredZone(
                    name: name, incarnation: sequence, capabilities: [.fetchChanges, .atomic], changeSequence: sequence)
                try storage.insertZone(stored)
                created.append(stored)
                saved.append(stored.recordZone)
            }
            return saved
        }
    }

    func deleteZones(_ zoneIDs: [ZoneID], reason: DatabaseChanges.DeletionReason) throws(CloudError) {
        try run(write: true) {
            var targets: [StoredZone] = []
            for zoneID in zoneIDs {
                if zoneID.isDefault {
                    guard reason == .purged else {
                        throw CloudError(.invalidArguments, "the default zone cannot be deleted")
                    }
                    continue
                }
                guard let zone = try storage.zone(named: zoneID.zoneName) else { throw try missingZoneError(zoneID) }
                targets.append(zone)
            }
            let base = try storage.reserveSequence(max(targets.count, 1))
            for (offset, zone) in targets.enumerated() {
                try storage.removeZone(
                    named: zone.name, incarnation: zone.incarnation, reason: reason, sequence: base + Int64(offset))
            }
            if zoneIDs.contains(where: \.isDefault) {
                // The user deleting the app's data empties the default zone too; it has no history to record.
                try storage.removeZone(
                    named: ZoneID.defaultZoneName, incarnation: 0, reason: .purged,
                    sequence: base + Int64(targets.count))
            }
        }
    }

    /// Moves the place of the zone of `token` in the database's changes to now, as a change of it that a fetch did
    /// not show becomes visible (``CloudServerControls``); nothing when `token` is of another database, or of the
    /// zone before it was deleted (and maybe created again).
    ///
    /// - Parameter token: The change token of the zone's page that did not show the change.
    /// - Throws: ``CloudError`` `invalidArguments` for a token that is not a zone's change token.
    func announceChangesBecameVisible(after token: ChangeToken) throws(CloudError) {
        guard let contents = token.contents, case .zone(let name, let incarnation) = contents.scope else {
            throw CloudError(.invalidArguments, "the change token is not a zone's change token of this container")
        }
        try run(write: true) {
            guard contents.databaseID == (try storage.databaseID()),
                try storage.zone(named: name)?.incarnation == incarnation
            else { return }
            try storage.touchZone(named: name, sequence: try storage.reserveSequence(1))
        }
    }

    func allZones() throws(CloudError) -> [RecordZone] {
        try run(write: false) {
            try storage.zones().sorted {
                ($0.name.isDefaultZoneName ? 0 : 1, $0.name) < ($1.name.isDefaultZoneName ? 0 : 1, $1.name)
            }
            .map(\.recordZone)
        }
    }

    // MARK: Records

    func records(for recordIDs: [RecordID]) throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try run(write: false) {
            var results: [RecordID: Result<Record, CloudError>] = [:]
            for id in recordIDs {
                if let problem = Self.problem(withRecordID: id) {
                    results[id] = .failure(CloudError(.invalidArguments, problem))
                } else if try storage.zone(named: id.zoneID.zoneName) == nil {
                    results[id] = .failure(try missingZoneError(id.zoneID))
                } else if let record = try storage.record(in: id.zoneID.zoneName, named: id.recordName) {
                    results[id] = .success(record)
                } else {
                    results[id] = .failure(CloudError(.unknownItem, "record \(id) does not exist"))
                }
            }
            return results
        }
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool, user: UserRecordID
    ) throws(CloudError) -> ModifyResult {
        let itemCount = saving.count + deleting.count
        guard itemCount <= limits.maximumItemsPerRequest else {
            throw CloudError(
                .limitExceeded,
                "the request holds \(itemCount) items; at most \(limits.maximumItemsPerRequest) fit in one request")
        }
        var seen = Set<RecordID>(minimumCapacity: itemCount)
        for record in saving where !seen.insert(record.recordID).inserted {
            throw CloudError(.invalidArguments, "record \(record.recordID) appears more than once in one request")
        }
        for id in deleting where !seen.insert(id).inserted {
            throw CloudError(.invalidArguments, "record \(id) appears more than once in one request")
        }
        // Each record's fields are sorted once, for encoding and for recognising a shape already checked.
        var saves: [PendingSave] = []
        saves.reserveCapacity(saving.count)
        var requestBytes = deleting.reduce(0) { $0 + $1.recordName.utf8.count }
        var keys = EncodedKeys()
        for index in saving.indices {
            let sorted = FieldsJSON.sortedFields(saving[index].fields)
            let encoded = FieldsJSON.encode(sorted: sorted, keys: &keys)
            requestBytes += encoded.count
            saves.append(PendingSave(record: saving[index], sortedFields: sorted, encoded: encoded))
        }
        guard requestBytes <= limits.maximumRequestBytes else {
            throw CloudError(
                .limitExceeded,
                "the request holds \(requestBytes) bytes; at most \(limits.maximumRequestBytes) fit in one request")
        }
        // A request none of whose items applied leaves the database exactly as it was: its transaction is rolled
        // back, so not even the sequence numbers it reserved are spent.
        var refused: ModifyResult?
        do {
            return try run(write: true) {
                let result = try applyModify(
                    saves: saves, deleting: deleting, savePolicy: savePolicy, atomically: atomically, user: user)
                let applied =
                    result.saveResults.values.contains { $0.isSuccess }
                    || result.deleteResults.values.contains { $0.isSuccess }
                if !applied && itemCount > 0 {
                    refused = result
                    throw CloudError(.internalError, "nothing applied; rolled back")
                }
                return result
            }
        } catch {
            if let refused { return refused }
            throw error
        }
    }

    /// Applies a modify request's items inside the caller's write transaction.
    private func applyModify(
        saves: [PendingSave], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool, user: UserRecordID
    ) throws -> ModifyResult {
        var request = ModifyRequest(database: self, policy: savePolicy, user: user, now: clock.now())
        request.nextSequence = try storage.reserveSequence(max(saves.count + deleting.count, 1))
        var result = ModifyResult()
        result.saveResults.reserveCapacity(saves.count)
        result.deleteResults.reserveCapacity(deleting.count)
        // Items are grouped by zone, in the order each zone first appears; atomicity is per zone. Nearly every
        // request names one zone, which needs no grouping.
        if let zone = saves.first?.record.recordID.zoneID.zoneName ?? deleting.first?.zoneID.zoneName,
            saves.allSatisfy({ $0.record.recordID.zoneID.zoneName == zone }),
            deleting.allSatisfy({ $0.zoneID.zoneName == zone })
        {
            try request.apply(
                zone: ZoneID(uncheckedName: zone), saves: saves, deletes: deleting, atomically: atomically,
                into: &result)
            return result
        }
        var zoneOrder: [String] = []
        var savesByZone: [String: [PendingSave]] = [:]
        var deletesByZone: [String: [RecordID]] = [:]
        for save in saves {
            let zone = save.record.recordID.zoneID.zoneName
            if savesByZone[zone] == nil && deletesByZone[zone] == nil { zoneOrder.append(zone) }
            savesByZone[zone, default: []].append(save)
        }
        for id in deleting {
            let zone = id.zoneID.zoneName
            if savesByZone[zone] == nil && deletesByZone[zone] == nil { zoneOrder.append(zone) }
            deletesByZone[zone, default: []].append(id)
        }
        for zoneName in zoneOrder {
            try request.apply(
                zone: ZoneID(uncheckedName: zoneName), saves: savesByZone[zoneName] ?? [],
                deletes: deletesByZone[zoneName] ?? [], atomically: atomically, into: &result)
        }
        return result
    }

    // MARK: Changes

    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) throws(CloudError)
        -> RecordZoneChanges
    {
        if zoneID.isDefault {
            throw CloudError(.invalidArguments, "the default zone cannot fetch changes; use a custom zone")
        }
        return try run(write: false) {
            guard let zone = try storage.zone(named: zoneID.zoneName) else { throw try missingZoneError(zoneID) }
            let databaseID = try storage.databaseID()
            var after: Int64 = 0
            if let token {
                guard let contents = token.contents else {
                    throw CloudError(.invalidArguments, "the change token is not a token of this container")
                }
                guard contents.databaseID == databaseID else {
                    throw CloudError(
                        .changeTokenExpired, "the change token belongs to another database; fetch from nil")
                }
                guard contents.scope == .zone(name: zone.name, incarnation: zone.incarnation) else {
                    throw CloudError(
                        .changeTokenExpired,
                        "the change token belongs to another zone, or to zone \(zone.name) before it was deleted and "
                            + "created again; fetch from nil")
                }
                after = contents.sequence
            }
            let limit = max(1, min(resultsLimit ?? limits.maximumChangesPerPage, limits.maximumChangesPerPage))
            var changes = try storage.changes(in: zone.name, after: after, limit: limit + 1)
            let moreComing = changes.count > limit
            if moreComing { changes.removeLast() }
            var page = RecordZoneChanges(
                modifications: [], deletions: [],
                changeToken: ChangeToken(
                    ChangeToken.Contents(
                        databaseID: databaseID, scope: .zone(name: zone.name, incarnation: zone.incarnation),
                        sequence: changes.last?.sequence ?? after)),
                moreComing: moreComing)
            for change in changes {
                switch change {
                case .modified(let record, _): page.modifications.append(record)
                case .deleted(let name, let type, _):
                    page.deletions.append(
                        .init(recordID: RecordID(uncheckedName: name, zoneID: zoneID), recordType: type))
                }
            }
            return page
        }
    }

    func databaseChanges(since token: ChangeToken?, resultsLimit: Int?) throws(CloudError) -> DatabaseChanges {
        try run(write: false) {
            let databaseID = try storage.databaseID()
            var after: Int64 = 0
            if let token {
                guard let contents = token.contents, contents.scope == .database else {
                    throw CloudError(.invalidArguments, "the change token is not a database change token")
                }
                guard contents.databaseID == databaseID else {
                    throw CloudError(
                        .changeTokenExpired, "the change token belongs to another database; fetch from nil")
                }
                after = contents.sequence
            }
            let limit = max(1, min(resultsLimit ?? limits.maximumChangesPerPage, limits.maximumChangesPerPage))
            var entries: [ZoneHistoryEntry] = try storage.zones()
                .filter { !$0.name.isDefaultZoneName && $0.changeSequence > after }
                .map { .modified($0.name, $0.changeSequence) }
            entries += try storage.zoneRemovals(after: after, limit: limit + 1).map { .removed($0) }
            entries.sort { $0.sequence < $1.sequence }
            let moreComing = entries.count > limit
            if moreComing { entries.removeLast(entries.count - limit) }
            var changes = DatabaseChanges(
                modifiedZoneIDs: [], deletions: [],
                changeToken: ChangeToken(
                    ChangeToken.Contents(
                        databaseID: databaseID, scope: .database, sequence: entries.last?.sequence ?? after)),
                moreComing: moreComing)
            for entry in entries {
                switch entry {
                case .modified(let name, _): changes.modifiedZoneIDs.append(ZoneID(uncheckedName: name))
                case .removed(let removal):
                    changes.deletions.append(.init(zoneID: ZoneID(uncheckedName: removal.name), reason: removal.reason))
                }
            }
            return changes
        }
    }

    // MARK: Helpers

    /// Runs `body` in a read or write transaction, turning storage failures into ``CloudError``.
    func run<T>(write: Bool, _ body: () throws -> T) throws(CloudError) -> T {
        do {
            return write ? try storage.write(body) : try storage.read(body)
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError.storageFailure(error, location: storage.location)
        }
    }

    func missingZoneError(_ zoneID: ZoneID) throws -> CloudError {
        if try storage.lastRemoval(ofZoneNamed: zoneID.zoneName) == .purged {
            return CloudError(
                .userDeletedZone,
                "the user deleted zone \(zoneID.zoneName) from iCloud settings; it must be created again before use")
        }
        return CloudError(.zoneNotFound, "zone \(zoneID.zoneName) does not exist")
    }

    static func problem(withZoneID zoneID: ZoneID) -> String? {
        if zoneID.isDefault { return "the default zone always exists and cannot be created" }
        return CloudKitNames.problem(withRecordName: zoneID.zoneName, kind: "zone name")
    }

    static func problem(withRecordID id: RecordID) -> String? {
        if let problem = CloudKitNames.problem(withRecordName: id.recordName) { return problem }
        if id.zoneID.isDefault { return nil }
        return CloudKitNames.problem(withRecordName: id.zoneID.zoneName, kind: "zone name")
    }

    /// A change tag: unique within this database, and (with 32 bits of the database's identifier) unlike the tags
    /// of other databases.
    static func changeTag(databaseID: String, sequence: Int64) -> String {
        changeTag(prefix: changeTagPrefix(databaseID: databaseID), sequence: sequence)
    }

    /// What every change tag of the database starts with: 8 characters of its identifier and a dash.
    static func changeTagPrefix(databaseID: String) -> [UInt8] {
        Array(String(databaseID.prefix(8)).utf8) + [UInt8(ascii: "-")]
    }

    /// A change tag from its prefix (``changeTagPrefix(databaseID:)``): the prefix, then the sequence in base 36,
    /// as `String(sequence, radix: 36)` writes it. Made once per saved record, so it is written directly.
    static func changeTag(prefix: [UInt8], sequence: Int64) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 14) { buffer in
            var count = 0
            for byte in prefix {
                buffer[count] = byte
                count += 1
            }
            if sequence < 0 {
                buffer[count] = UInt8(ascii: "-")
                count += 1
            }
            var magnitude = sequence.magnitude
            let start = count
            repeat {
                let digit = UInt8(magnitude % 36)
                buffer[count] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                count += 1
                magnitude /= 36
            } while magnitude > 0
            var low = start
            var high = count - 1
            while low < high {
                buffer.swapAt(low, high)
                low += 1
                high -= 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self)
        }
    }
}

/// A zone change as database change fetches report it: a zone modified, or removed.
private enum ZoneHistoryEntry {
    case modified(String, Int64)
    case removed(ZoneRemoval)

    var sequence: Int64 {
        switch self {
        case .modified(_, let sequence): sequence
        case .removed(let removal): removal.sequence
        }
    }
}

extension String {
    var isDefaultZoneName: Bool { self == ZoneID.defaultZoneName }
}

extension CloudError {
    /// The container's own storage failed: a damaged file, a full disk, a lock held too long.
    static func storageFailure(_ error: any Error, location: String) -> CloudError {
        var cloudError = CloudError(.internalError, "the container's storage at \(location) failed: \(error)")
        cloudError.storageError = error
        return cloudError
    }
}

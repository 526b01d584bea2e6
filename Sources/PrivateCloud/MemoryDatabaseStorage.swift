#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One account's private database in memory: the storage behind ``MemoryContainer``.
///
/// Writes are made atomic with an undo log: every mutation records how to reverse itself, and a failed write or
/// savepoint replays the log backwards. Each zone keeps its history as an append-only list of (sequence, record
/// name); an entry is live while the record's current sequence is the entry's, so a change fetch walks only the
/// entries after the token. Superseded entries are dropped when they outnumber live ones, keeping that walk linear
/// in the changes returned.
final class MemoryDatabaseStorage: DatabaseStorage {
    private struct StoredRow {
        var recordType: String
        var fields: [String: FieldValue]
        var changeTag: String
        var sequence: Int64
        var created: Date
        var modified: Date
        var creator: UserRecordID
        var lastModifier: UserRecordID
    }

    private struct Tombstone {
        var recordType: String
        var sequence: Int64
    }

    private struct ZoneContents {
        var zone: StoredZone
        var rows: [String: StoredRow] = [:]
        var tombstones: [String: Tombstone] = [:]
        /// (sequence, record name), in sequence order; an entry is stale once its record has a newer sequence.
        var history: [(sequence: Int64, name: String)] = []
        var staleEntries = 0

        func currentSequence(of name: String) -> Int64? {
            rows[name]?.sequence ?? tombstones[name]?.sequence
        }
    }

    private enum Undo {
        case zone(String, ZoneContents?)
        case zoneChangeSequence(String, Int64)
        case row(zone: String, name: String, StoredRow?)
        case tombstone(zone: String, name: String, Tombstone?)
        case history(zone: String, count: Int, staleEntries: Int)
        case removals(count: Int)
        case nextSequence(Int64)
        case fieldTypes(String, [String: FieldType]?)
    }

    let location: String
    private let identifier: String
    private var zonesByName: [String: ZoneContents]
    private var removals: [ZoneRemoval] = []
    private var nextSequence: Int64 = 1
    private var fieldTypesByRecordType: [String: [String: FieldType]] = [:]
    private var undoLog: [Undo]?

    /// Creates an empty database with its default zone.
    ///
    /// - Parameters:
    ///   - location: A description for messages, such as `memory:alice/iCloud.com.example.me`.
    ///   - databaseID: An identifier no other database has.
    init(location: String, databaseID: String) {
        self.location = location
        self.identifier = databaseID
        let defaultZone = StoredZone(name: ZoneID.defaultZoneName, incarnation: 0, capabilities: [], changeSequence: 0)
        zonesByName = [ZoneID.defaultZoneName: ZoneContents(zone: defaultZone)]
    }

    // MARK: Transactions

    func read<T>(_ body: () throws -> T) throws -> T { try body() }

    func write<T>(_ body: () throws -> T) throws -> T {
        precondition(undoLog == nil, "writes do not nest")
        undoLog = []
        defer { undoLog = nil }
        do {
            return try body()
        } catch {
            undo(to: 0)
            throw error
        }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let mark = undoLog?.count ?? 0
        do {
            return try body()
        } catch {
            undo(to: mark)
            throw error
        }
    }

    private func undo(to mark: Int) {
        guard var log = undoLog else { return }
        while log.count > mark {
            switch log.removeLast() {
            case .zone(let name, let contents): zonesByName[name] = contents
            case .zoneChangeSequence(let name, let sequence): zonesByName[name]?.zone.changeSequence = sequence
            case .row(let zone, let name, let row): zonesByName[zone]?.rows[name] = row
            case .tombstone(let zone, let name, let tombstone): zonesByName[zone]?.tombstones[name] = tombstone
            case .history(let zone, let count, let stale):
                if let current = zonesByName[zone]?.history.count {
                    zonesByName[zone]?.history.removeLast(current - count)
                    zonesByName[zone]?.staleEntries = stale
                }
            case .removals(let count): removals.removeLast(removals.count - count)
            case .nextSequence(let value): nextSequence = value
            case .fieldTypes(let type, let types): fieldTypesByRecordType[type] = types
            }
        }
        undoLog = log
    }

    /// Writes a record row or tombstone change into a zone, logging how to undo it.
    private func change(
        zone: String, name: String, row: StoredRow?, tombstone: Tombstone?, sequence: Int64, stale: Int
    ) {
        guard let contents = zonesByName[zone] else { return }
        undoLog?.append(.history(zone: zone, count: contents.history.count, staleEntries: contents.staleEntries))
        undoLog?.append(.row(zone: zone, name: name, contents.rows[name]))
        undoLog?.append(.tombstone(zone: zone, name: name, contents.tombstones[name]))
        zonesByName[zone]!.rows[name] = row
        zonesByName[zone]!.tombstones[name] = tombstone
        zonesByName[zone]!.history.append((sequence, name))
        zonesByName[zone]!.staleEntries += stale
    }

    // MARK: Meta

    func databaseID() throws -> String { identifier }

    func reserveSequence(_ count: Int) throws -> Int64 {
        undoLog?.append(.nextSequence(nextSequence))
        defer { nextSequence += Int64(count) }
        return nextSequence
    }

    // MARK: Zones

    func zone(named name: String) throws -> StoredZone? { zonesByName[name]?.zone }

    func zones() throws -> [StoredZone] { zonesByName.values.map(\.zone) }

    func insertZone(_ zone: StoredZone) throws {
        undoLog?.append(.zone(zone.name, zonesByName[zone.name]))
        zonesByName[zone.name] = ZoneContents(zone: zone)
    }

    func touchZone(named name: String, sequence: Int64) throws {
        guard let previous = zonesByName[name]?.zone.changeSequence else { return }
        undoLog?.append(.zoneChangeSequence(name, previous))
        zonesByName[name]?.zone.changeSequence = sequence
    }

    func removeZone(
        named name: String, incarnation: Int64, reason: DatabaseChanges.DeletionReason, sequence: Int64
    )
        throws
    {
        undoLog?.append(.zone(name, zonesByName[name]))
        if name.isDefaultZoneName {
            zonesByName[name] = ZoneContents(zone: zonesByName[name]!.zone)
            return
        }
        zonesByName[name] = nil
        undoLog?.append(.removals(count: removals.count))
        removals.append(ZoneRemoval(name: name, reason: reason, sequence: sequence))
    }

    func lastRemoval(ofZoneNamed name: String) throws -> DatabaseChanges.DeletionReason? {
        removals.last(where: { $0.name == name })?.reason
    }

    func zoneRemovals(after sequence: Int64, limit: Int) throws -> [ZoneRemoval] {
        Array(removals.filter { $0.sequence > sequence }.prefix(limit))
    }

    // MARK: Records

    func record(in zone: String, named name: String) throws -> Record? {
        guard let row = zonesByName[zone]?.rows[name] else { return nil }
        return Self.record(row, name: name, zone: zone)
    }

    private static func record(_ row: StoredRow, name: String, zone: String) -> Record {
        Record(
            recordID: RecordID(uncheckedName: name, zoneID: ZoneID(uncheckedName: zone)), recordType: row.recordType,
            fields: row.fields,
            systemFields: SystemFields(
                changeTag: row.changeTag, creationDate: row.created, modificationDate: row.modified,
                creatorUserRecordID: row.creator, lastModifiedUserRecordID: row.lastModifier))
    }

    func insertRecord(_ row: RecordRow) throws -> Bool {
        guard zonesByName[row.zone]?.rows[row.name] == nil else { return false }
        let fields = try decodeFields(row)
        let replacesTombstone = zonesByName[row.zone]?.tombstones[row.name] != nil
        change(
            zone: row.zone, name: row.name,
            row: StoredRow(
                recordType: row.recordType, fields: fields, changeTag: row.changeTag, sequence: row.sequence,
                created: row.date, modified: row.date, creator: row.user, lastModifier: row.user),
            tombstone: nil, sequence: row.sequence, stale: replacesTombstone ? 1 : 0)
        return true
    }

    func updateRecord(_ row: RecordRow, expectedChangeTag: String?) throws -> (Date, UserRecordID)? {
        guard let existing = zonesByName[row.zone]?.rows[row.name], existing.recordType == row.recordType,
            expectedChangeTag == nil || existing.changeTag == expectedChangeTag
        else { return nil }
        let fields = try decodeFields(row)
        change(
            zone: row.zone, name: row.name,
            row: StoredRow(
                recordType: row.recordType, fields: fields, changeTag: row.changeTag, sequence: row.sequence,
                created: existing.created, modified: row.date, creator: existing.creator, lastModifier: row.user),
            tombstone: nil, sequence: row.sequence, stale: 1)
        return (existing.created, existing.creator)
    }

    func deleteRecord(in zone: String, named name: String, sequence: Int64, at date: Date) throws -> String? {
        guard let existing = zonesByName[zone]?.rows[name] else { return nil }
        change(
            zone: zone, name: name, row: nil, tombstone: Tombstone(recordType: existing.recordType, sequence: sequence),
            sequence: sequence, stale: 1)
        return existing.recordType
    }

    /// The stored fields are decoded from the same bytes a file would hold, so both backends accept and refuse
    /// exactly the same values.
    private func decodeFields(_ row: RecordRow) throws -> [String: FieldValue] {
        try FieldsJSON.decode(row.encodedFields)
    }

    func changes(in zone: String, after sequence: Int64, limit: Int) throws -> [StoredChange] {
        guard var contents = zonesByName[zone] else { return [] }
        if contents.staleEntries > max(64, contents.history.count / 2) {
            contents.history = contents.history.filter { contents.currentSequence(of: $0.name) == $0.sequence }
            contents.staleEntries = 0
            zonesByName[zone] = contents
        }
        let history = contents.history
        // Binary search for the first entry after `sequence`.
        var low = 0
        var high = history.count
        while low < high {
            let middle = (low + high) / 2
            if history[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        var changes: [StoredChange] = []
        var index = low
        while index < history.count, changes.count < limit {
            let entry = history[index]
            index += 1
            if let row = contents.rows[entry.name], row.sequence == entry.sequence {
                changes.append(.modified(Self.record(row, name: entry.name, zone: zone), sequence: entry.sequence))
            } else if let tombstone = contents.tombstones[entry.name], tombstone.sequence == entry.sequence {
                changes.append(.deleted(name: entry.name, recordType: tombstone.recordType, sequence: entry.sequence))
            }
        }
        return changes
    }

    // MARK: Record types

    func fieldTypes(of recordType: String) throws -> [String: FieldType] {
        fieldTypesByRecordType[recordType] ?? [:]
    }

    func addFieldTypes(_ types: [String: FieldType], to recordType: String) throws {
        undoLog?.append(.fieldTypes(recordType, fieldTypesByRecordType[recordType]))
        fieldTypesByRecordType[recordType, default: [:]].merge(types) { old, _ in old }
    }

    // MARK: Inspection

    /// Every record, for tests and the simulator's invariant checks.
    func allRecords() -> [Record] {
        zonesByName.flatMap { zone, contents in
            contents.rows.map { Self.record($0.value, name: $0.key, zone: zone) }
        }
    }
}

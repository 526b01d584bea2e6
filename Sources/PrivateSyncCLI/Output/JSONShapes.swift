import DeviceStore
import PrivateCloud
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON value, for record fields in output.
enum JSONValue: Encodable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        case .null: try container.encodeNil()
        }
    }

    /// A field value as JSON: dates as ISO 8601, bytes as base64, references as the record name, locations as an
    /// object.
    init(_ value: FieldValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .bytes(let data): self = .string(data.base64EncodedString())
        case .date(let date): self = .string(Formats.iso(date))
        case .reference(let reference): self = .string(reference.recordID.recordName)
        case .location(let location):
            self = .object(["latitude": .number(location.latitude), "longitude": .number(location.longitude)])
        case .list(let values): self = .array(values.map(JSONValue.init))
        }
    }
}

/// How values are written in output.
enum Formats {
    /// ISO 8601, UTC, proleptic Gregorian, with the fewest fraction digits that read back to the same date
    /// (``DateArgument/text(_:)``): what is printed can be typed back unchanged.
    static func iso(_ date: Date) -> String {
        DateArgument.text(date)
    }

    /// A field value for a human: short, and escaped (``TextEscaping``), so that it stays on its line and a string's
    /// quotes are its own.
    static func human(_ value: FieldValue) -> String {
        switch value {
        case .string(let text):
            text.count > 40
                ? "\"\(TextEscaping.escape(text.prefix(37)))...\"" : "\"\(TextEscaping.escape(text))\""
        case .date(let date): iso(date)
        case .list(let values): "[" + values.map(human).joined(separator: ", ") + "]"
        case .reference(let reference): "→" + TextEscaping.escape(reference.recordID.recordName)
        default: value.description
        }
    }
}

/// `sync status --json`, and the status in `launch` and `sync on|off` output.
struct StatusJSON: Encodable {
    let state: String
    let detail: String?
    let reason: String?
    let fallbackOccurred: Bool
    let pendingChanges: Int
    let copy: String
    let nextAttempt: String?
    /// Records from iCloud with a value this device could not take: each name and what was wrong and done.
    let fetchedRecordProblems: [Problem]
    /// Records written here whose save iCloud refused for good, held on this device only: their names.
    let savesRefused: [String]

    /// A record from iCloud this device could not take whole.
    struct Problem: Encodable {
        let record: String
        let problem: String
    }

    init(_ status: SyncStatus) {
        fetchedRecordProblems = status.fetchedRecordProblems.keys.sorted().map {
            Problem(record: $0, problem: status.fetchedRecordProblems[$0]!)
        }
        savesRefused = status.savesRefused.sorted()
        state = status.state.name
        reason = status.pauseReason?.rawValue
        fallbackOccurred = status.fallbackOccurred
        pendingChanges = status.pendingChanges
        copy = status.copy
        if case .on(let detail) = status.state {
            self.detail = detail.name
            if case .waiting(_, let next?) = detail { nextAttempt = Formats.iso(next) } else { nextAttempt = nil }
        } else {
            detail = nil
            nextAttempt = nil
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(state, forKey: .state)
        try container.encode(detail, forKey: .detail)
        try container.encode(reason, forKey: .reason)
        try container.encode(fallbackOccurred, forKey: .fallbackOccurred)
        try container.encode(pendingChanges, forKey: .pendingChanges)
        try container.encode(copy, forKey: .copy)
        try container.encode(nextAttempt, forKey: .nextAttempt)
        try container.encode(fetchedRecordProblems, forKey: .fetchedRecordProblems)
        try container.encode(savesRefused, forKey: .savesRefused)
    }

    private enum Keys: String, CodingKey {
        case state, detail, reason, fallbackOccurred, pendingChanges, copy, nextAttempt, fetchedRecordProblems
        case savesRefused
    }
}

/// A record in `record list --json` and `record add --json`.
struct RecordJSON: Encodable {
    let name: String
    let type: String
    let partition: String
    let fields: [String: JSONValue]
    let origin: String?
    let createdAt: String
    let modifiedAt: String

    init(_ record: StoredRecord, partition: Partition) {
        name = record.name
        type = record.type
        self.partition = partition.rawValue
        fields = record.fields.mapValues(JSONValue.init)
        origin = record.origin?.recordName
        createdAt = Formats.iso(record.createdAt)
        modifiedAt = Formats.iso(record.modifiedAt)
    }
}

/// A record as it is in a container, in `cloud record … --json`.
struct CloudRecordJSON: Encodable {
    let name: String
    let type: String
    let zone: String
    let fields: [String: JSONValue]
    let changeTag: String?
    let createdAt: String?
    let modifiedAt: String?

    init(_ record: Record) {
        name = record.recordID.recordName
        type = record.recordType
        zone = record.recordID.zoneID.zoneName
        fields = Dictionary(
            uniqueKeysWithValues: record.allKeys.compactMap { key in record[key].map { (key, JSONValue($0)) } })
        changeTag = record.recordChangeTag
        createdAt = record.systemFields.map { Formats.iso($0.creationDate) }
        modifiedAt = record.systemFields.map { Formats.iso($0.modificationDate) }
    }
}

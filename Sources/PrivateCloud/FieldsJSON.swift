import PrivateSyncJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The stored form of a record's fields: one JSON object, each value tagged with its type.
///
/// `{"mood":{"int64":3},"note":{"string":"slept badly"},"date":{"date":786297600}}`
///
/// Keys are written sorted, so equal fields encode to equal bytes. Dates are seconds since 2001-01-01 (Apple's
/// reference date, which Core Data stores too), so a date round-trips exactly. Bytes are base64. Doubles are written
/// with the shortest text that reads back as the same double. The format is documented in `docs/container.md`, and
/// it is what `sqlite3` shows in the `fields` column; `json_extract(fields, '$.mood.int64')` reads one value.
public enum FieldsJSON {
    /// Encodes fields.
    ///
    /// - Parameter fields: The fields.
    /// - Returns: UTF-8 JSON text.
    public static func encode(_ fields: [String: FieldValue]) -> [UInt8] {
        encode(sorted: sortedFields(fields))
    }

    /// A field, as ``sortedFields(_:)`` lists them.
    struct Field {
        let key: String
        let value: FieldValue
        /// The key's first eight bytes, big-endian: ASCII keys sort by it, then by the key (see ``sortedFields(_:)``).
        let order: UInt64
    }

    /// Encodes fields already in the order ``encode(_:)`` writes them (``sortedFields(_:)``).
    ///
    /// The container sorts a record's fields once and uses the order twice: to encode them, and to recognise a
    /// record of the same shape as the one before it (`make bench`, `container_save_ratio`).
    ///
    /// - Parameter fields: The fields, sorted by key.
    /// - Returns: UTF-8 JSON text.
    static func encode(sorted fields: [Field]) -> [UInt8] {
        FieldsWriter.encode(fields, estimate: estimatedSize(sorted: fields))
    }

    /// About the bytes ``encode(sorted:)`` writes for `fields` (exactly, when no string needs an escape).
    static func estimatedSize(sorted fields: [Field]) -> Int {
        var estimate = 2
        for index in fields.indices {
            estimate += fields[index].key.utf8.count + 4 + estimatedSize(fields[index].value)
        }
        return estimate
    }

    /// Encodes fields already in the order ``encode(_:)`` writes them, copying the keys the last record encoded with
    /// `keys` had at the same positions.
    static func encode(sorted fields: [Field], keys: inout EncodedKeys) -> [UInt8] {
        let estimate = estimatedSize(sorted: fields)
        for index in fields.indices where keys.encoded(fields[index].key, at: index) == nil {
            let key = fields[index].key
            keys.remember(key, FieldsWriter.bytes(estimate: key.utf8.count + 3) { $0.write(key: key) }, at: index)
        }
        return FieldsWriter.bytes(estimate: estimate) { writer in
            writer.append(UInt8(ascii: "{"))
            for index in fields.indices {
                if index > 0 { writer.append(UInt8(ascii: ",")) }
                if let key = keys.encoded(fields[index].key, at: index) {
                    key.withUnsafeBufferPointer { writer.append($0) }
                } else {
                    writer.write(key: fields[index].key)
                }
                writer.write(value: fields[index].value)
            }
            writer.append(UInt8(ascii: "}"))
        }
    }

    /// The fields in the order ``encode(_:)`` writes them: sorted by key, as `String`'s `<` sorts keys.
    ///
    /// Keys are nearly always ASCII identifiers, whose bytes sort as `String`'s `<` sorts them (UTF-8 keeps the order
    /// of code points, and ASCII is its own normal form): they are sorted by their first eight bytes as one integer,
    /// and by `<` only when those are equal. Any other key sorts them all by `<`.
    static func sortedFields(_ fields: [String: FieldValue]) -> [Field] {
        var sorted: [Field] = []
        sorted.reserveCapacity(fields.count)
        var ascii = true
        for (key, value) in fields {
            let (order, isASCII) = orderPrefix(key)
            ascii = ascii && isASCII
            sorted.append(Field(key: key, value: value, order: order))
        }
        if ascii {
            sorted.sort { $0.order != $1.order ? $0.order < $1.order : $0.key < $1.key }
        } else {
            sorted.sort { $0.key < $1.key }
        }
        return sorted
    }

    /// A key's first eight bytes as a big-endian integer (zero-padded), and whether every byte of it is ASCII: when
    /// all keys are ASCII, sorting by it and then by `<` sorts them as `<` alone does.
    package static func orderPrefix(_ key: String) -> (UInt64, Bool) {
        var key = key
        return key.withUTF8 { bytes in
            var prefix: UInt64 = 0
            var all: UInt8 = 0
            for index in 0..<bytes.count {
                all |= bytes[index]
                if index < 8 { prefix |= UInt64(bytes[index]) << (56 - 8 * UInt64(index)) }
            }
            return (prefix, all < 0x80)
        }
    }

    /// The number of bytes ``encode(_:)`` writes for `fields`, counted without writing them (and without sorting:
    /// the order does not change the size). Records are measured against CloudKit's 1 MB limit at every write.
    ///
    /// - Parameter fields: The fields.
    /// - Returns: `encode(fields).count`.
    public static func encodedSize(_ fields: [String: FieldValue]) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { nowhere in
            var counter = FieldsWriter(base: nowhere.baseAddress!, capacity: 0)
            counter.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { counter.append(UInt8(ascii: ",")) }
                counter.write(string: field.key)
                counter.append(UInt8(ascii: ":"))
                counter.write(value: field.value)
            }
            counter.append(UInt8(ascii: "}"))
            return counter.count
        }
    }

    /// Appends a double as ``encode(_:)`` writes it: exactly its `description`, without making a `String` for a
    /// whole number.
    package static func appendDouble(_ number: Double, to output: inout [UInt8]) {
        output += FieldsWriter.bytes(estimate: 32) { $0.write(double: number) }
    }

    /// Appends an integer as ``encode(_:)`` writes it.
    static func appendInteger(_ number: Int64, to output: inout [UInt8]) {
        output += FieldsWriter.bytes(estimate: 20) { $0.write(integer: number) }
    }

    /// About the bytes `value` encodes to (exactly, for a string without escapes), to size the output once.
    private static func estimatedSize(_ value: FieldValue) -> Int {
        switch value {
        case .string(let text): 14 + text.utf8.count
        case .bytes(let data): 14 + (data.count + 2) / 3 * 4
        case .list(let elements): 11 + elements.count * 32
        case .reference(let reference):
            60 + reference.recordID.recordName.utf8.count + reference.recordID.zoneID.zoneName.utf8.count
        case .location: 140
        default: 32
        }
    }

    /// Decodes fields written by ``encode(_:)``.
    ///
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: The fields.
    /// - Throws: ``FieldsDecodingError`` with the byte offset of the first problem.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(FieldsDecodingError) -> [String: FieldValue] {
        var scanner = JSONScanner(bytes)
        do throws(JSONScanError) {
            // Room for a dozen fields at once, rather than growing (and rehashing) four times on the way.
            var fields = [String: FieldValue](minimumCapacity: 12)
            try scanner.expect(UInt8(ascii: "{"))
            if !scanner.consume(UInt8(ascii: "}")) {
                repeat {
                    let key = try scanner.readString()
                    try scanner.expect(UInt8(ascii: ":"))
                    fields[key] = try readValue(&scanner, allowList: true)
                } while scanner.consume(UInt8(ascii: ","))
                try scanner.expect(UInt8(ascii: "}"))
            }
            scanner.skipWhitespace()
            guard scanner.isAtEnd else { throw scanner.error("unexpected text after the object") }
            return fields
        } catch {
            throw FieldsDecodingError(description: error.description)
        }
    }

    /// Decodes fields from an array of bytes.
    public static func decode(_ bytes: [UInt8]) throws(FieldsDecodingError) -> [String: FieldValue] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FieldsDecodingError) -> [String: FieldValue] in try decode(buffer) }
        }
        return try result.get()
    }

    // MARK: Reading

    /// The type tags of a value, in the order of ``readValue(_:allowList:)``'s cases.
    private static let typeTags: [StaticString] = [
        "string", "int64", "double", "bool", "date", "bytes", "reference", "location", "list",
    ]

    private static func readValue(_ scanner: inout JSONScanner, allowList: Bool) throws(JSONScanError) -> FieldValue {
        try scanner.expect(UInt8(ascii: "{"))
        let tagStart = scanner.offset
        let tag = try scanner.readString(matching: typeTags)
        try scanner.expect(UInt8(ascii: ":"))
        let value: FieldValue
        switch tag {
        case 0: value = .string(try scanner.readString())
        case 1: value = .int64(try scanner.readInt64())
        case 2: value = .double(try scanner.readDouble())
        case 3: value = .bool(try scanner.readBool())
        case 4: value = .date(Date(timeIntervalSinceReferenceDate: try scanner.readDouble()))
        case 5:
            let text = try scanner.readString()
            guard let data = Data(base64Encoded: text) else { throw scanner.error("invalid base64 in a bytes value") }
            value = .bytes(data)
        case 6:
            try scanner.expect(UInt8(ascii: "{"))
            var name: String?
            var zone: String?
            var action = RecordReference.Action.none
            repeat {
                let key = try scanner.readString()
                try scanner.expect(UInt8(ascii: ":"))
                switch key {
                case "recordName": name = try scanner.readString()
                case "zoneName": zone = try scanner.readString()
                case "action":
                    let text = try scanner.readString()
                    guard let parsed = RecordReference.Action(rawValue: text) else {
                        throw scanner.error("unknown reference action \(text)")
                    }
                    action = parsed
                default: try scanner.skipValue()
                }
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
            guard let name, let zone else { throw scanner.error("a reference without recordName or zoneName") }
            value = .reference(
                RecordReference(
                    recordID: RecordID(uncheckedName: name, zoneID: ZoneID(uncheckedName: zone)), action: action))
        case 7:
            try scanner.expect(UInt8(ascii: "["))
            var parts: [Double] = []
            repeat { parts.append(try scanner.readDouble()) } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
            guard parts.count == 5 else { throw scanner.error("a location needs 5 numbers") }
            value = .location(
                Location(
                    latitude: parts[0], longitude: parts[1], altitude: parts[2], horizontalAccuracy: parts[3],
                    verticalAccuracy: parts[4]))
        case 8 where allowList:
            try scanner.expect(UInt8(ascii: "["))
            var elements: [FieldValue] = []
            if !scanner.consume(UInt8(ascii: "]")) {
                repeat {
                    elements.append(try readValue(&scanner, allowList: false))
                } while scanner.consume(
                    UInt8(ascii: ","))
                try scanner.expect(UInt8(ascii: "]"))
            }
            value = .list(elements)
        default:
            // Read the tag again, as text, for the message.
            scanner.offset = tagStart
            let type = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"))
            throw scanner.error("unknown field type \"\(type)\"")
        }
        try scanner.expect(UInt8(ascii: "}"))
        return value
    }
}

/// Stored fields that could not be decoded.
public struct FieldsDecodingError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, and at which byte.
    public let description: String
}

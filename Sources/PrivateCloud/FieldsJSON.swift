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
        var output: [UInt8] = []
        output.reserveCapacity(64 + fields.count * 32)
        output.append(UInt8(ascii: "{"))
        for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(field.key, to: &output)
            output.append(UInt8(ascii: ":"))
            appendValue(field.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Decodes fields written by ``encode(_:)``.
    ///
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: The fields.
    /// - Throws: ``FieldsDecodingError`` with the byte offset of the first problem.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(FieldsDecodingError) -> [String: FieldValue] {
        var scanner = JSONScanner(bytes)
        do throws(JSONScanError) {
            var fields: [String: FieldValue] = [:]
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

    // MARK: Writing

    private static func appendValue(_ value: FieldValue, to output: inout [UInt8]) {
        func tag(_ opening: StaticString) {
            output.append(contentsOf: UnsafeBufferPointer(start: opening.utf8Start, count: opening.utf8CodeUnitCount))
        }
        switch value {
        case .string(let text):
            tag(#"{"string":"#)
            appendString(text, to: &output)
        case .int64(let number):
            tag(#"{"int64":"#)
            appendInteger(number, to: &output)
        case .double(let number):
            tag(#"{"double":"#)
            appendDouble(number, to: &output)
        case .bool(let flag):
            tag(#"{"bool":"#)
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .bytes(let data):
            tag(#"{"bytes":"#)
            appendString(data.base64EncodedString(), to: &output)
        case .date(let date):
            tag(#"{"date":"#)
            appendDouble(date.timeIntervalSinceReferenceDate, to: &output)
        case .reference(let reference):
            tag(#"{"reference":"#)
            output.append(contentsOf: "{\"recordName\":".utf8)
            appendString(reference.recordID.recordName, to: &output)
            output.append(contentsOf: ",\"zoneName\":".utf8)
            appendString(reference.recordID.zoneID.zoneName, to: &output)
            output.append(contentsOf: ",\"action\":".utf8)
            appendString(reference.action.rawValue, to: &output)
            output.append(UInt8(ascii: "}"))
        case .location(let location):
            tag(#"{"location":"#)
            output.append(UInt8(ascii: "["))
            let parts = [
                location.latitude, location.longitude, location.altitude, location.horizontalAccuracy,
                location.verticalAccuracy,
            ]
            for (index, part) in parts.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                appendDouble(part, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .list(let elements):
            tag(#"{"list":"#)
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                appendValue(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
        output.append(UInt8(ascii: "}"))
    }

    static func appendDouble(_ number: Double, to output: inout [UInt8]) {
        // Whole numbers (most dates, many measurements) are written as Swift writes them, digits then ".0", without
        // going through a String; below 2^53 every whole double is exactly an Int64.
        if number == number.rounded(.towardZero), abs(number) < 1e15, number != 0 || number.sign == .plus {
            appendInteger(Int64(number), to: &output)
            output.append(UInt8(ascii: "."))
            output.append(UInt8(ascii: "0"))
            return
        }
        // Otherwise Swift prints the shortest text that reads back as the same double.
        output.append(contentsOf: number.description.utf8)
    }

    /// Appends the decimal digits of `number`, as `String(number)` writes them.
    static func appendInteger(_ number: Int64, to output: inout [UInt8]) {
        if number < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string; non-ASCII characters are written as UTF-8, control characters escaped.
    ///
    /// Runs of bytes that need no escape (nearly all of them) are copied whole: appending byte by byte was a third
    /// of the container's save path (`make bench`, `container_save_ratio`).
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscape(byte, to: &output)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            output.append(contentsOf: "u00".utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0xF)])
        }
    }

    // MARK: Reading

    private static func readValue(_ scanner: inout JSONScanner, allowList: Bool) throws(JSONScanError) -> FieldValue {
        try scanner.expect(UInt8(ascii: "{"))
        let type = try scanner.readString()
        try scanner.expect(UInt8(ascii: ":"))
        let value: FieldValue
        switch type {
        case "string": value = .string(try scanner.readString())
        case "int64": value = .int64(try scanner.readInt64())
        case "double": value = .double(try scanner.readDouble())
        case "bool": value = .bool(try scanner.readBool())
        case "date": value = .date(Date(timeIntervalSinceReferenceDate: try scanner.readDouble()))
        case "bytes":
            let text = try scanner.readString()
            guard let data = Data(base64Encoded: text) else { throw scanner.error("invalid base64 in a bytes value") }
            value = .bytes(data)
        case "reference":
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
        case "location":
            try scanner.expect(UInt8(ascii: "["))
            var parts: [Double] = []
            repeat { parts.append(try scanner.readDouble()) } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
            guard parts.count == 5 else { throw scanner.error("a location needs 5 numbers") }
            value = .location(
                Location(
                    latitude: parts[0], longitude: parts[1], altitude: parts[2], horizontalAccuracy: parts[3],
                    verticalAccuracy: parts[4]))
        case "list" where allowList:
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

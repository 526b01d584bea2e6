import PrivateSyncJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the JSON text of record fields (the format of ``FieldsJSON``) into memory of a fixed size.
///
/// It counts every byte it is asked to write, and writes only those that fit: a first pass into a buffer sized by
/// an estimate either fits, or learns the exact size for a second pass. Nothing grows, and nothing is checked for
/// uniqueness, byte by byte: encoding is paid for every record saved (`make bench`, `container_save_ratio`).
package struct FieldsWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// How many bytes were written, or would have been: more than the capacity when they did not fit.
    package private(set) var count = 0

    /// A writer into `capacity` bytes at `base`.
    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The fields as `FieldsJSON` encodes them, in a new array.
    ///
    /// - Parameters:
    ///   - fields: The fields, sorted by key.
    ///   - estimate: About the size, in bytes.
    static func encode(_ fields: [FieldsJSON.Field], estimate: Int) -> [UInt8] {
        bytes(estimate: estimate) { $0.write(fields) }
    }

    /// What `body` writes, in a new array: written once into `estimate` bytes, and again into the exact size when
    /// that was too small. `body` must write the same bytes every time.
    package static func bytes(estimate: Int, _ body: (inout FieldsWriter) -> Void) -> [UInt8] {
        let estimate = max(estimate, 1)
        var needed = 0
        let first = [UInt8](unsafeUninitializedCapacity: estimate) { buffer, initialized in
            var writer = FieldsWriter(base: buffer.baseAddress!, capacity: estimate)
            body(&writer)
            needed = writer.count
            initialized = min(needed, estimate)
        }
        if needed <= estimate { return first }
        return [UInt8](unsafeUninitializedCapacity: needed) { buffer, initialized in
            var writer = FieldsWriter(base: buffer.baseAddress!, capacity: needed)
            body(&writer)
            initialized = needed
        }
    }

    // MARK: Bytes

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count < capacity { base[count] = byte }
        count += 1
    }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if count + bytes.count <= capacity, let source = bytes.baseAddress {
            (base + count).update(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 bytes of `text` as they are (no quotes, no escapes).
    /// Writes again the bytes written before at `range` (counted only, as they were, when they did not fit).
    package mutating func appendWritten(_ range: Range<Int>) {
        precondition(range.upperBound <= count, "only bytes already written can be written again")
        if range.upperBound <= capacity {
            append(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
        } else {
            count += range.count
        }
    }

    package mutating func append(utf8 text: String) {
        // A native string's bytes are read in place; only another kind is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var text = text
        text.withUTF8 { append($0) }
    }

    // MARK: JSON

    mutating func write(_ fields: [FieldsJSON.Field]) {
        append(UInt8(ascii: "{"))
        for index in fields.indices {
            if index > 0 { append(UInt8(ascii: ",")) }
            write(key: fields[index].key)
            write(value: fields[index].value)
        }
        append(UInt8(ascii: "}"))
    }

    /// Writes a key and its colon: `"key":`.
    mutating func write(key: String) {
        write(string: key)
        append(UInt8(ascii: ":"))
    }

    mutating func write(value: FieldValue) {
        switch value {
        case .string(let text):
            append(#"{"string":"#)
            write(string: text)
        case .int64(let number):
            append(#"{"int64":"#)
            write(integer: number)
        case .double(let number):
            append(#"{"double":"#)
            write(double: number)
        case .bool(let flag):
            append(#"{"bool":"#)
            append(flag ? "true" : "false")
        case .bytes(let data):
            append(#"{"bytes":"#)
            write(string: data.base64EncodedString())
        case .date(let date):
            append(#"{"date":"#)
            write(double: date.timeIntervalSinceReferenceDate)
        case .reference(let reference):
            append(#"{"reference":{"recordName":"#)
            write(string: reference.recordID.recordName)
            append(#","zoneName":"#)
            write(string: reference.recordID.zoneID.zoneName)
            append(#","action":"#)
            write(string: reference.action.rawValue)
            append(UInt8(ascii: "}"))
        case .location(let location):
            append(#"{"location":["#)
            write(double: location.latitude)
            append(UInt8(ascii: ","))
            write(double: location.longitude)
            append(UInt8(ascii: ","))
            write(double: location.altitude)
            append(UInt8(ascii: ","))
            write(double: location.horizontalAccuracy)
            append(UInt8(ascii: ","))
            write(double: location.verticalAccuracy)
            append(UInt8(ascii: "]"))
        case .list(let elements):
            append(#"{"list":["#)
            for index in elements.indices {
                if index > 0 { append(UInt8(ascii: ",")) }
                write(value: elements[index])
            }
            append(UInt8(ascii: "]"))
        }
        append(UInt8(ascii: "}"))
    }

    /// Writes a double as Swift writes it: the shortest text that reads back as the same double.
    package mutating func write(double number: Double) {
        // Whole numbers (most dates, many measurements) are written digits then ".0", as Swift writes them, without
        // going through a String; below 2^53 every whole double is exactly an Int64.
        if number == number.rounded(.towardZero), abs(number) < 1e15, number != 0 || number.sign == .plus {
            write(integer: Int64(number))
            append(".0")
            return
        }
        var text = number.description
        text.withUTF8 { append($0) }
    }

    /// Writes the decimal digits of `number`, as `String(number)` writes them.
    mutating func write(integer number: Int64) {
        if number < 0 { append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Writes `text` as a JSON string; non-ASCII characters are written as UTF-8, control characters escaped.
    ///
    /// Runs of bytes that need no escape (nearly all of them) are copied whole.
    package mutating func write(string text: String) {
        append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var start = 0
            while true {
                let stop = JSONPlainRun.end(UnsafeRawPointer(base), from: start, to: bytes.count)
                append(UnsafeBufferPointer(rebasing: bytes[start..<stop]))
                if stop == bytes.count { break }
                write(escape: bytes[stop])
                start = stop + 1
            }
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func write(escape byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            append("u00")
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}

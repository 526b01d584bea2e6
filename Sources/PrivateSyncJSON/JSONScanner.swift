#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reader of JSON text over raw bytes, for the fixed shapes this stores.
///
/// It exists for speed: decoding record fields is on the hot path of every fetch and every initial sync, and a
/// direct scan is several times faster than going through `Codable`. It reads standard JSON (RFC 8259) and
/// reports the byte offset of anything it cannot read.
package struct JSONScanner: ~Copyable {
    package let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    package var offset = 0

    /// A scanner over `bytes`, which must outlive it.
    ///
    /// - Parameter bytes: The JSON text.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether `byte` is an ASCII digit, `0` to `9`.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Whether every byte was read.
    package var isAtEnd: Bool { offset >= bytes.count }

    /// Skips blanks (spaces, tabs, line breaks).
    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// The next non-blank byte, without consuming it.
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte`, the next non-blank byte; throws when it is not.
    ///
    /// Inlined, with the next byte tried before any blank is skipped: the text this package writes has no blanks, and
    /// a record's fields take some forty of these.
    @inline(__always)
    package mutating func expect(_ byte: UInt8) throws(JSONScanError) {
        if offset < bytes.count, bytes[offset] == byte {
            offset += 1
            return
        }
        try expectAfterBlanks(byte)
    }

    private mutating func expectAfterBlanks(_ byte: UInt8) throws(JSONScanError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == byte else {
            throw error("expected '\(Character(UnicodeScalar(byte)))'")
        }
        offset += 1
    }

    /// Consumes `byte` if it is next (after any blanks).
    @inline(__always)
    package mutating func consume(_ byte: UInt8) -> Bool {
        if offset < bytes.count, bytes[offset] == byte {
            offset += 1
            return true
        }
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    /// Reads a string, its escapes decoded.
    ///
    /// - Returns: The string.
    /// - Throws: ``JSONScanError`` when the next value is not a well-formed string.
    package mutating func readString() throws(JSONScanError) -> String {
        try expect(UInt8(ascii: "\""))
        let start = offset
        // Fast path: no escapes, so the bytes are the string. Skips the run that neither ends the string, starts an
        // escape nor is a control character (long texts are read on every fetch of their record).
        if let base = bytes.baseAddress { offset = JSONPlainRun.end(base, from: offset, to: bytes.count) }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("a control character inside a string") }
            offset += 1
        }
        var buffer = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard offset < bytes.count else { throw error("an unfinished escape") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                            bytes[offset + 1] == UInt8(ascii: "u")
                        else { throw error("a lone high surrogate") }
                        offset += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("an invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    buffer.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("an unknown escape")
                }
            default:
                if byte < 0x20 { throw error("a control character inside a string") }
                buffer.append(byte)
            }
        }
        throw error("an unterminated string")
    }

    private mutating func readHex4() throws(JSONScanError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            offset += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("a bad hex digit")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Reads a string and tells which of `candidates` it is, without making a `String` when it holds no escape.
    ///
    /// - Returns: The index of the candidate the string equals, or `nil`; the scanner has moved past it either way.
    package mutating func readString(matching candidates: [StaticString]) throws(JSONScanError) -> Int? {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected '\"'") }
        var end = offset + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            // An escape, a control character or no end: read it the long way, which reports any problem.
            let text = try readString()
            return candidates.firstIndex { text == $0.description }
        }
        let start = offset + 1
        offset = end + 1
        // Length and first byte first, then the rest at once: a record's every value has a type tag to match.
        let count = end - start
        guard count > 0, let base = bytes.baseAddress else {
            return candidates.firstIndex { $0.utf8CodeUnitCount == 0 }
        }
        let text = base + start
        let first = text.load(as: UInt8.self)
        for index in candidates.indices {
            let candidate = candidates[index]
            if candidate.utf8CodeUnitCount == count, candidate.utf8Start.pointee == first,
                memcmp(candidate.utf8Start, text, count) == 0
            {
                return index
            }
        }
        return nil
    }

    /// The text of a number, validated against JSON's number grammar.
    private mutating func readNumberText() throws(JSONScanError) -> Substring {
        let range = try scanNumber()
        return Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Where the next number's text lies, validated against JSON's number grammar; consumes it.
    private mutating func scanNumber() throws(JSONScanError) -> Range<Int> {
        skipWhitespace()
        let start = offset
        func digits(_ scanner: inout JSONScanner) -> Int {
            let from = scanner.offset
            while scanner.offset < scanner.bytes.count, JSONScanner.isDigit(scanner.bytes[scanner.offset]) {
                scanner.offset += 1
            }
            return scanner.offset - from
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard digits(&self) > 0 else { throw error("expected a number") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits(&self) > 0 else { throw error("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits(&self) > 0 else { throw error("expected an exponent") }
        }
        return start..<offset
    }

    /// Reads a whole number.
    ///
    /// - Returns: The number.
    /// - Throws: ``JSONScanError`` when the next value is not a whole number that fits 64 bits.
    package mutating func readInt64() throws(JSONScanError) -> Int64 {
        let range = try scanNumber()
        // Up to 18 digits and no fraction or exponent: read here, without overflow (`Int64(_:)` reads the rest).
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        if range.upperBound - index <= 18 {
            var value: Int64 = 0
            while index < range.upperBound, JSONScanner.isDigit(bytes[index]) {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            if index == range.upperBound { return negative ? -value : value }
        }
        let text = Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Int64(text) else { throw error("\(text) is not a 64-bit integer") }
        return value
    }

    /// Reads a whole number from 0 to `UInt64.max` (a seed), which ``readInt64()`` cannot hold above `Int64.max`.
    ///
    /// - Returns: The number.
    /// - Throws: ``JSONScanError`` when the next value is not a whole number from 0 to `UInt64.max`.
    package mutating func readUInt64() throws(JSONScanError) -> UInt64 {
        let range = try scanNumber()
        let text = Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        // `UInt64(_:)` takes the digits alone: a sign, a fraction or an exponent is refused.
        guard JSONScanner.isDigit(bytes[range.lowerBound]), let value = UInt64(text) else {
            throw error("\(text) is not a whole number from 0 to \(UInt64.max)")
        }
        return value
    }

    /// Powers of ten that a double holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var power = 1.0
        for _ in 0..<exponent { power *= 10 }
        return power
    }

    /// Reads a number.
    ///
    /// - Returns: The number.
    /// - Throws: ``JSONScanError`` when the next value is not a number.
    package mutating func readDouble() throws(JSONScanError) -> Double {
        let range = try scanNumber()
        if let value = Self.exactDouble(bytes, range) { return value }
        let text = Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text) else { throw error("\(text) is not a number") }
        return value
    }

    /// The double a number's text names, when it can be computed exactly without `strtod`: digits with at most one
    /// point and no exponent, whose digits make an integer below 2^53 and whose point stands at most 22 places from
    /// the end. Both that integer and the power of ten are then exact doubles, and one division rounds correctly
    /// (Clinger's fast path), as `Double(_:)` does. `nil` for any other text.
    private static func exactDouble(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double? {
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                fraction = 0
            } else if JSONScanner.isDigit(byte) {
                guard digits < 19 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if mantissa != 0 { digits += 1 }
                if fraction >= 0 { fraction += 1 }
            } else {
                return nil
            }
            index += 1
        }
        let places = max(fraction, 0)
        guard mantissa <= 1 << 53, places <= 22 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[places]
        return negative ? -value : value
    }

    /// Reads `true` or `false`.
    ///
    /// - Returns: The value.
    /// - Throws: ``JSONScanError`` when the next value is neither.
    package mutating func readBool() throws(JSONScanError) -> Bool {
        skipWhitespace()
        if matches("true") { return true }
        if matches("false") { return false }
        throw error("expected true or false")
    }

    /// Consumes `null` if it is next.
    package mutating func consumeNull() -> Bool {
        skipWhitespace()
        return matches("null")
    }

    private mutating func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] { return false }
        offset += count
        return true
    }

    /// Skips any one JSON value.
    package mutating func skipValue(depth: Int = 0) throws(JSONScanError) {
        guard depth < 64 else { throw error("nesting is too deep") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "{"):
            offset += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                _ = try readString()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            offset += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat { try skipValue(depth: depth + 1) } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard consumeNull() else { throw error("expected null") }
        default: _ = try readNumberText()
        }
    }

    package func error(_ problem: String) -> JSONScanError {
        JSONScanError(offset: offset, problem: problem)
    }
}

/// JSON text that could not be read: where, and what was found wrong.
package struct JSONScanError: Error, Sendable, CustomStringConvertible {
    /// The byte at which the problem was found.
    package let offset: Int
    /// What was found wrong.
    package let problem: String

    package var description: String { "\(problem) at byte \(offset)" }
}

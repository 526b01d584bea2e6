import Testing

@testable import PrivateCloud
@testable import PrivateSyncJSON

/// The scan for the end of a plain run finds the first quote, backslash or control byte wherever it lies: in the
/// 32-byte vector steps, the eight-byte steps or the last bytes; and strings round-trip through the writer and
/// the scanner whatever they hold.
@Suite("JSON plain runs")
struct JSONPlainRunTests {
    static let specials: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, UInt8(ascii: "\""), UInt8(ascii: "\\")]
    static let plains: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF, UInt8(ascii: "a")]

    static func naiveEnd(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            ?? bytes.count
    }

    @Test("the first special byte is found at every position, after every kind of plain byte, from every start")
    func findsEverySpecialByte() {
        for length in [0, 1, 7, 8, 9, 31, 32, 33, 40, 64, 65, 100] {
            for plain in Self.plains {
                for position in 0...length {
                    for special in Self.specials where position < length || special == Self.specials[0] {
                        var bytes = [UInt8](repeating: plain, count: length)
                        if position < length { bytes[position] = special }
                        for start in [0, 1, 5].filter({ $0 <= length }) {
                            let found = bytes.withUnsafeBytes { raw in
                                JSONPlainRun.end(
                                    raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, from: start, to: length)
                            }
                            #expect(found == Self.naiveEnd(bytes, from: start), "length \(length) at \(position)")
                        }
                    }
                }
            }
        }
    }

    @Test("strings with escapes anywhere in long runs round-trip through the writer and the scanner")
    func longStringsRoundTrip() throws {
        var generator = SplitMix64(seed: 14)
        for _ in 0..<200 {
            let length = Int.random(in: 0..<300, using: &generator)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length {
                let roll = Int.random(in: 0..<40, using: &generator)
                switch roll {
                case 0: scalars.append("\"")
                case 1: scalars.append("\\")
                case 2: scalars.append("\n")
                case 3: scalars.append(Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &generator)))
                case 4: scalars.append("é")
                case 5: scalars.append("🙂")
                default: scalars.append(Unicode.Scalar(UInt8.random(in: 0x20..<0x7F, using: &generator)))
                }
            }
            let text = String(scalars)
            let encoded = FieldsWriter.bytes(estimate: 16) { $0.write(string: text) }
            let decoded = try encoded.withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                return try scanner.readString()
            }
            #expect(decoded == text)
        }
    }
}

import PrivateSyncSQLite
import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The stored form of fields: numbers are written exactly as Swift prints them, whatever path writes them.
@Suite("Fields JSON")
struct FieldsJSONTests {
    static let doubles: [Double] = [
        0, 1, -1, 788_918_400, -788_918_400, 0.5, -0.5, 70.1, 1e-7, 123_456_789.25, 999_999_999_999_999,
        1e15, -1e15, 9_007_199_254_740_992, 1e16, 1.7976931348623157e308, Double.leastNonzeroMagnitude, -0.0, 3,
        2e14 + 1,
    ]

    @Test("a double is written as its description, whole or not", arguments: doubles)
    func doubleText(value: Double) {
        var output: [UInt8] = []
        FieldsJSON.appendDouble(value, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == value.description)
    }

    @Test("an integer is written as String(_:) writes it", arguments: [Int64.min, Int64.max, 0, -1, 7, 1_000_000, -42])
    func integerText(value: Int64) {
        var output: [UInt8] = []
        FieldsJSON.appendInteger(value, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == String(value))
    }

    @Test(
        "fields bound in place are the very bytes encode writes, escapes (longer than estimated) and megabytes included",
        arguments: [0, 1, 200, 1_000_000])
    func boundFieldsAreTheEncodedBytes(quotes: Int) throws {
        let fields: [String: FieldValue] = [
            "note": .string(String(repeating: "\"", count: quotes) + "plain ☃"), "mood": .int64(3),
            "text": .string(String(repeating: "x", count: quotes)),
            "when": .date(Date(timeIntervalSinceReferenceDate: 7)),
        ]
        let connection = try Connection(path: ":memory:", mode: .readWriteCreate)
        let select = try connection.prepare("SELECT CAST(? AS BLOB)")
        try select.bindFields(fields, at: 1)
        #expect(try select.step())
        #expect(select.blob(0) == FieldsJSON.encode(fields))
    }

    @Test("fields round-trip, strings with quotes, escapes and non-ASCII included")
    func roundTrip() throws {
        let fields: [String: FieldValue] = [
            "note": .string("say \"hi\"\\ \n\t\r\u{01} café"), "mood": .int64(-3), "weight": .double(70.25),
            "taken": .bool(true), "date": .date(Date(timeIntervalSinceReferenceDate: 788_918_400)),
            "ratios": .list([.double(0.5), .double(-0.0)]), "empty": .string(""),
        ]
        let encoded = FieldsJSON.encode(fields)
        #expect(try FieldsJSON.decode(encoded) == fields)
        #expect(String(decoding: encoded, as: UTF8.self).hasPrefix(#"{"date":{"date":788918400.0},"empty""#))
    }

    @Test("fields are written sorted as String's < sorts their keys, ASCII or not, long shared prefixes included")
    func keyOrder() throws {
        let keys = [
            "b", "a", "A", "Z", "_x", "a0", "abcdefgh", "abcdefghi", "abcdefgg", "abcdefgh1", "a\u{0}", "é",
            "e\u{301}x",
            "ab\u{301}", "ac", "zz", "Zz", "mood", "moodiness", "mood_2",
        ]
        for count in [1, 2, 5, keys.count] {
            for asciiOnly in [true, false] {
                let chosen = Array(keys.filter { !asciiOnly || $0.utf8.allSatisfy { $0 < 0x80 } }.prefix(count))
                var fields: [String: FieldValue] = [:]
                for (index, key) in chosen.enumerated() { fields[key] = .int64(Int64(index)) }
                let sorted = FieldsJSON.sortedFields(fields).map(\.key)
                #expect(sorted == fields.keys.sorted(), "\(chosen)")
                let decoded = try FieldsJSON.decode(FieldsJSON.encode(fields))
                #expect(decoded == fields)
            }
        }
    }

    @Test("strings are escaped wherever the characters fall, and encoded exactly when the first guess is short")
    func escapesAtEveryPosition() throws {
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "\u{7F}", "é", "☃"] {
            for position in 0..<20 {
                for length in [position + 1, position + 9, 40] {
                    var characters = Array(repeating: "x", count: length)
                    characters[position] = special
                    let text = characters.joined()
                    let fields: [String: FieldValue] = ["k": .string(text)]
                    let encoded = FieldsJSON.encode(fields)
                    #expect(try FieldsJSON.decode(encoded) == fields)
                    #expect(encoded == FieldsJSONTests.reference(fields), "\(text.debugDescription)")
                }
            }
        }
        // Nothing but escapes: six bytes written for each byte given.
        let controls: [String: FieldValue] = ["c": .string(String(repeating: "\u{1}", count: 300))]
        #expect(try FieldsJSON.decode(FieldsJSON.encode(controls)) == controls)
        #expect(FieldsJSON.encode(controls) == FieldsJSONTests.reference(controls))
    }

    /// The encoding of string fields written the simplest way, byte by byte: what the encoder must match.
    static func reference(_ fields: [String: FieldValue]) -> [UInt8] {
        func string(_ text: String) -> [UInt8] {
            var output: [UInt8] = [UInt8(ascii: "\"")]
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), byte]
                case 0x0A: output += Array("\\n".utf8)
                case 0x0D: output += Array("\\r".utf8)
                case 0x09: output += Array("\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default: output.append(byte)
                }
            }
            return output + [UInt8(ascii: "\"")]
        }
        var output: [UInt8] = [UInt8(ascii: "{")]
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            guard case .string(let text) = fields[key]! else { fatalError("strings only") }
            output += string(key) + Array(#":{"string":"#.utf8) + string(text) + [UInt8(ascii: "}")]
        }
        return output + [UInt8(ascii: "}")]
    }

    static let decimalTexts = [
        "0", "-0", "0.0", "-0.0", "1", "0.1", "0.3", "70.1", "788918400.123456", "788918400.0", "9007199254740992",
        "9007199254740993", "9007199254740993.0", "123456789012345678901234567890", "0.000000000000000000001",
        "0.0000000000000000000001", "1.7976931348623157e308", "1e5", "1E-5", "-12.5e+3", "5e-324", "00012.50",
        "4.35", "2.2250738585072014e-308", "1234567890123456789.5", "0.12345678901234567890",
    ]

    @Test("a decimal reads as Double(_:) reads it, whichever path reads it", arguments: decimalTexts)
    func decimalReading(text: String) throws {
        let fields = try FieldsJSON.decode(Array(#"{"a":{"double":\#(text)},"b":{"date":\#(text)}}"#.utf8))
        let expected = try #require(Double(text))
        guard case .double(let value)? = fields["a"], case .date(let date)? = fields["b"] else {
            Issue.record("\(text) did not read as a double and a date")
            return
        }
        #expect(value.bitPattern == expected.bitPattern, "\(text)")
        #expect(date.timeIntervalSinceReferenceDate.bitPattern == expected.bitPattern, "\(text)")
    }

    @Test(
        "an integer reads as Int64(_:) reads it, and one out of range is refused",
        arguments: [
            "0", "-0", "7", "-42", "123456789012345678", "-123456789012345678", "999999999999999999",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "0007",
            "1.5", "1e3",
        ])
    func integerReading(text: String) {
        let decoded = try? FieldsJSON.decode(Array(#"{"a":{"int64":\#(text)}}"#.utf8))
        if let expected = Int64(text) {
            #expect(decoded?["a"] == .int64(expected), "\(text)")
        } else {
            #expect(decoded == nil, "\(text)")
        }
    }

    @Test("an unknown type tag is refused, naming it and where the reading stopped")
    func unknownTag() {
        for text in [#"{"a":{"strings":"x"}}"#, #"{"a":{"str\u0069ng2":"x"}}"#, #"{"a":{"list":[{"list":[]}]}}"#] {
            do {
                _ = try FieldsJSON.decode(Array(text.utf8))
                Issue.record("\(text) was read")
            } catch {
                #expect(error.description.contains("unknown field type"), "\(error)")
            }
        }
        do {
            _ = try FieldsJSON.decode(Array(#"{"a":{"strings":"x"}}"#.utf8))
            Issue.record("an unknown tag was read")
        } catch {
            #expect(error.description == #"unknown field type "strings" at byte 16"#)
        }
    }

    @Test("the encoded size is counted exactly, without encoding")
    func encodedSizeIsExact() {
        let samples: [[String: FieldValue]] = [
            [:], ["a": .string("")], ["note": .string("say \"hi\"\\ \n\t\u{01} café ☃")],
            ContainerConformance.Records.everyFieldType,
            ["big": .string(String(repeating: "x\"", count: 5000)), "n": .double(0.1), "d": .double(-0.0)],
        ]
        for fields in samples {
            #expect(FieldsJSON.encodedSize(fields) == FieldsJSON.encode(fields).count)
        }
    }
}

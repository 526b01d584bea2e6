import FoundationEssentials
import Testing

@testable import PrivateCloud

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
}

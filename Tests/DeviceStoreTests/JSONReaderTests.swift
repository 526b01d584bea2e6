import Testing

@testable import DeviceStore

/// The reader of the package's small JSON files: what it accepts, and where it says the problem is.
@Suite("JSON reader")
struct JSONReaderTests {
    struct Sample: Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var note: String?
        var tags: [String]
    }

    /// Reads `{"name", "count", "ratio", "flag", "note", "tags"}`, all required but `note`.
    static func read(_ text: String) throws(JSONReadError) -> Sample {
        var sample: Sample?
        var failure: JSONReadError?
        Array(text.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            do throws(JSONReadError) {
                var name: String?
                var count: Int?
                var ratio: Double?
                var flag: Bool?
                var note: String??
                var tags: [String]?
                var first = true
                try reader.beginObject(at: "the top level")
                while let key = try reader.nextKey(&first, at: "the top level") {
                    switch key {
                    case "name" where name == nil: name = try reader.string(at: "name")
                    case "count" where count == nil: count = try reader.int(at: "count")
                    case "ratio" where ratio == nil: ratio = try reader.double(at: "ratio")
                    case "flag" where flag == nil: flag = try reader.bool(at: "flag")
                    case "note" where note == nil: note = .some(try reader.optionalString(at: "note"))
                    case "tags" where tags == nil: tags = try reader.strings(at: "tags")
                    case "name", "count", "ratio", "flag", "note", "tags":
                        throw reader.repeatedKey(key, at: "the top level")
                    default: throw reader.unknownKey(key, at: "the top level")
                    }
                }
                try reader.end()
                guard let name, let count, let ratio, let flag, let tags else {
                    throw reader.missingKey("name", at: "the top level")
                }
                sample = Sample(name: name, count: count, ratio: ratio, flag: flag, note: note ?? nil, tags: tags)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return sample!
    }

    @Test("reads every kind of value, escapes and white space included")
    func readsValues() throws {
        let sample = try Self.read(
            #" { "name" : "caf\u00e9 \"x\"\n", "count": -42, "ratio": 2.5e3, "flag": true, "note": null, "tags": ["a", "b\/c"] } "#
        )
        #expect(
            sample == Sample(name: "café \"x\"\n", count: -42, ratio: 2500, flag: true, note: nil, tags: ["a", "b/c"]))
        let empty = try Self.read(#"{"tags": [], "flag": false, "ratio": 0, "count": 0, "name": "", "note": "n"}"#)
        #expect(empty == Sample(name: "", count: 0, ratio: 0, flag: false, note: "n", tags: []))
    }

    @Test(
        "names the place and the problem",
        arguments: [
            ("[]", "the top level should be an object"),
            (#"{"name": 1}"#, "name should be a string"),
            (#"{"count": 1.5}"#, "count"),
            (#"{"flag": "yes"}"#, "flag should be true or false"),
            (#"{"tags": ["a", 2]}"#, "tags[1] should be a string"),
            (#"{"tags": "a"}"#, "tags should be an array"),
            (#"{"name": "a", "name": "b"}"#, "has the key \"name\" twice"),
            (#"{"nmae": "a"}"#, "has an unknown key \"nmae\""),
            (#"{"name": "a""#, "expected '}'"),
            (#"{"name": "a\q"}"#, "name"),
            (#"{"tags": [], "flag": false, "ratio": 0, "count": 0, "name": ""} x"#, "followed by more text"),
            (#"{"flag": false}"#, "missing the key"),
        ])
    func namesTheProblem(text: String, mentions: String) {
        let error = #expect(throws: (any Error).self) {
            try Self.read(text)
        }
        #expect(error.map { "\($0)" }?.contains(mentions) == true, "\(String(describing: error))")
    }
}

import Testing

@testable import PrivateSyncJSON

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
        try JSONReader.read(Array(text.utf8)) { (reader: inout JSONReader) throws(JSONReadError) in
            var sample = Sample(name: "", count: 0, ratio: 0, flag: false, note: nil, tags: [])
            let keys = ["name", "count", "ratio", "flag", "note", "tags"]
            let required = ["name", "count", "ratio", "flag", "tags"]
            try reader.object(at: "the top level", keys: keys, required: required) {
                key, reader throws(JSONReadError) in
                switch key {
                case "name": sample.name = try reader.string(at: "name")
                case "count": sample.count = try reader.int(at: "count")
                case "ratio": sample.ratio = try reader.double(at: "ratio")
                case "flag": sample.flag = try reader.bool(at: "flag")
                case "note": sample.note = try reader.optionalString(at: "note")
                default: sample.tags = try reader.strings(at: "tags")
                }
            }
            return sample
        }
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
            (#"{"flag": false}"#, "the top level is missing the key \"name\""),
            (#"{"name": "a", "count": 1, "ratio": 0, "flag": false}"#, "the top level is missing the key \"tags\""),
        ])
    func namesTheProblem(text: String, mentions: String) {
        let error = #expect(throws: (any Error).self) {
            try Self.read(text)
        }
        #expect(error.map { "\($0)" }?.contains(mentions) == true, "\(String(describing: error))")
    }

    /// Reads `{"x", "y"}`, both required, through `objectOfRequiredKeys`.
    static func readPoint(_ text: String) throws(JSONReadError) -> [Int] {
        try JSONReader.read(Array(text.utf8)) { (reader: inout JSONReader) throws(JSONReadError) in
            try reader.objectOfRequiredKeys(at: "point", keys: ["x", "y"], filling: [-1, -1]) {
                key, reader, point throws(JSONReadError) in
                point[key == "x" ? 0 : 1] = try reader.int(at: "point.\(key)")
            }
        }
    }

    @Test(
        "an object of required keys is filled by every key, and refused without one, so no placeholder escapes",
        arguments: [
            (#"{"y": 2, "x": 1}"#, "[1, 2]"),
            (#"{"x": 1}"#, "point is missing the key \"y\""),
            (#"{"x": 1, "y": 2, "z": 3}"#, "point has an unknown key \"z\""),
            (#"{"x": 1, "x": 2, "y": 3}"#, "point has the key \"x\" twice"),
        ])
    func objectOfRequiredKeys(text: String, outcome: String) {
        let result = Result { () throws(JSONReadError) in try Self.readPoint(text) }
        switch result {
        case .success(let point): #expect("\(point)" == outcome)
        case .failure(let error): #expect("\(error)".contains(outcome), "\(error)")
        }
    }
}

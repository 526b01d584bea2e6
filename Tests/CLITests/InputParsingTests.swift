import Foundation
import Testing

@testable import PrivateSyncCLI

/// The CLI's readers of typed values, one table each: what is accepted (and as what), and what is refused.
@Suite("CLI: strict input parsing")
struct InputParsingTests {
    static let now = Date(timeIntervalSince1970: 1_000)

    /// A date as typed, and the instant it must mean (seconds since 1970).
    static let dateTable: [(String, Double)] = [
        ("2026-11-29", 1_795_910_400),
        ("2026-11-29T08:30:00Z", 1_795_941_000),
        ("2026-11-29T09:30:00+01:00", 1_795_941_000),
        ("2026-11-29T03:00:00-05:30", 1_795_941_000),
        ("2026-11-29T08:30:00.5Z", 1_795_941_000.5),
        ("2026-11-29T08:30:00.123456789Z", 1_795_941_000.123456789),
        ("2024-02-29", 1_709_164_800),
        ("2000-02-29T23:59:59Z", 951_868_799),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59Z", -1),
        ("0001-01-01T00:00:00Z", -62_135_596_800),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
        ("now", 1_000),
    ]

    static let badDates = [
        "2026-11-29T17:45:00", "2026-11-29 08:30:00Z", "2026-11-29T08:30:00 PST", "2026-11-29T08:30:00PST",
        "2026-11-29xyz", "2026-11-29T08:30:00Zxyz", "2026-11-29T08:30:00Z ", " 2026-11-29", "2026-02-30",
        "2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00", "0000-01-01",
        "2026-11-29T24:00:00Z", "2026-11-29T25:00:00Z", "2026-11-29T99:99:99Z", "2026-11-29T08:60:00Z",
        "2026-11-29T08:30:60Z", "2026-11-29T08:30:61Z", "2026-11-29T08:30:00+24:00", "2026-11-29T08:30:00+01:60",
        "2026-11-29T08:30:00+0100", "2026-11-29T08:30:00+01", "2026-11-29T08:30:00.Z",
        "2026-11-29T08:30:00.1234567890Z",
        "2026-11-29T08:30Z", "2026-11-29t08:30:00z", "2026-1-29", "26-11-29", "+2026-11-29", "2026/11/29", "",
        "Now", "yesterday", "1795941000", "2026-11-29T08:30:00,5Z", "２０２６-11-29",
    ]

    @Test("an accepted date form means exactly its instant", arguments: dateTable)
    func acceptedDate(_ text: String, _ seconds: Double) throws {
        let date = try #require(DateArgument.parse(text, now: Self.now))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(text) read as \(date.timeIntervalSince1970)")
    }

    @Test("a date in any other form, or naming no real instant, is refused", arguments: badDates)
    func refusedDate(_ text: String) {
        #expect(DateArgument.parse(text, now: Self.now) == nil)
    }

    static let canonicalBase64: [(String, [UInt8])] = [
        ("", []), ("AA==", [0]), ("AAA=", [0, 0]), ("AAAA", [0, 0, 0]), ("/w==", [255]), ("aGk=", [104, 105]),
        ("aGVsbG8=", Array("hello".utf8)), ("+/+/", [0xFB, 0xFF, 0xBF]),
    ]
    static let nonCanonicalBase64 = [
        "====", "=", "A===", "AA=", "AA", "A", "AB==", "AAB=", "AA==AA==", "AA=A", "A=AA", "aGk", "aG k=", "aGk=\n",
        "aGk-", "aGk_", "aGk*", "é===",
    ]

    @Test("canonical base64 decodes to its bytes", arguments: canonicalBase64)
    func acceptedBase64(_ text: String, _ bytes: [UInt8]) {
        #expect(Base64Argument.decode(text) == bytes)
    }

    @Test(
        "base64 with bad padding, stray characters or non-zero trailing bits is refused", arguments: nonCanonicalBase64)
    func refusedBase64(_ text: String) {
        #expect(Base64Argument.decode(text) == nil)
    }

    static let escapeTable: [(String, String)] = [
        ("plain text", "plain text"), ("a\nb", "a\\nb"), ("a\rb", "a\\rb"), ("a\tb", "a\\tb"),
        ("say \"hi\"", "say \\\"hi\\\""), ("back\\slash", "back\\\\slash"), ("\u{1B}[31mred", "\\e[31mred"),
        ("\u{0}\u{7}\u{8}", "\\u{0}\\u{7}\\u{8}"), ("del\u{7F}", "del\\u{7F}"), ("c1\u{85}\u{9B}", "c1\\u{85}\\u{9B}"),
        ("line\u{2028}sep", "line\\u{2028}sep"), ("\u{202E}evil", "\\u{202E}evil"), ("café ☕️", "café ☕️"),
    ]

    @Test("text output escapes quotes, backslashes and every control character", arguments: escapeTable)
    func escape(_ raw: String, _ shown: String) {
        #expect(TextEscaping.escape(raw) == shown)
    }

    @Test("the last pass over a line escapes control characters and leaves its quotes alone")
    func lineEscape() {
        #expect(TextEscaping.escape("a 'b' \"c\" \\d\ne", quotes: false) == "a 'b' \"c\" \\d\\ne")
    }

    static let homeTable: [(String, String)] = [
        ("/x/w/", "/x/w"), ("/x/w//", "/x/w"), ("/x/./w", "/x/w"), ("/x/y/../w", "/x/w"), ("//x///w", "/x/w"),
        ("/", "/"), ("/..", "/"), ("/x/w/.", "/x/w"),
    ]

    @Test("a world's folder is normalized: no '.', '..', repeated or trailing slash", arguments: homeTable)
    func normalizedHome(_ given: String, _ normalized: String) throws {
        #expect(try HomePath.normalize(given) == normalized)
    }

    @Test("a relative world folder is made absolute from the working folder, and an empty one is refused")
    func relativeHome() throws {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(try HomePath.normalize("./w") == cwd + "/w")
        #expect(try HomePath.normalize("w/") == cwd + "/w")
        #expect(throws: CLIError.self) { try HomePath.normalize("") }
    }

    static let shards: [(String, ShardArgument)] = [
        ("0/1", .fixed(index: 0, count: 1)), ("3/8", .fixed(index: 3, count: 8)),
        ("10/11", .fixed(index: 10, count: 11)),
        ("999999/1000000", .fixed(index: 999_999, count: 1_000_000)), ("env", .environment),
    ]
    static let badShards = [
        "00/01", "0/01", "01/2", "+0/1", "0/+1", "-0/1", "-1/3", "1/-3", "0/0", "1/1", "3/2", "0/1000001", " 0/1",
        "0/1 ", "0x1/2", "1_0/20", "/", "0/", "/1", "", "1/2/3", "٣/8", "0/١", "99999999999999999999/1", "ENV",
    ]

    @Test("--shard takes I/N with both numbers in canonical decimal, or env", arguments: shards)
    func acceptedShard(_ text: String, _ shard: ShardArgument) {
        #expect(ShardArgument.parse(text) == shard)
    }

    @Test("--shard refuses a sign, a leading zero, a number out of range, and anything else", arguments: badShards)
    func refusedShard(_ text: String) {
        #expect(ShardArgument.parse(text) == nil)
    }

    @Test("--shard env reads canonical numbers only from the environment")
    func environmentShard() throws {
        func resolve(_ index: String, _ count: String) -> (index: Int, count: Int)? {
            try? ShardArgument.environment.resolve(environment: [
                ShardArgument.indexVariable: index, ShardArgument.countVariable: count,
            ])
        }
        #expect(resolve("2", "3").map { [$0.index, $0.count] } == [2, 3])
        for (index, count) in [("02", "3"), ("2", "03"), ("+2", "3"), ("2", "+3"), ("-0", "3"), ("2", "3 ")] {
            #expect(resolve(index, count) == nil, "\(index)/\(count)")
        }
    }

    @Test("a name in a message is escaped and cut to its first 200 characters")
    func shownName() {
        #expect(TextEscaping.name("a\u{1B}b") == "a\\eb")
        #expect(TextEscaping.name(String(repeating: "x", count: 200)) == String(repeating: "x", count: 200))
        #expect(
            TextEscaping.name(String(repeating: "x", count: 4_000_000)) == String(repeating: "x", count: 200) + "...")
    }
}

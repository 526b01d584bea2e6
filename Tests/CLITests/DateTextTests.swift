import Foundation
import Testing

@testable import PrivateSyncCLI

/// Output shows dates in the calendar input reads (proleptic Gregorian, UTC): every date the parser accepts prints
/// as text that parses back to the very same stored value, so a tool that round-trips `record list --json` never
/// moves a date. Foundation's ISO 8601 style, used before, showed `0001-01-01` as `0001-01-03` (the Julian cut-over)
/// and `9999-12-31T23:59:59.999999999Z` as `10000-01-01T00:00:00Z`.
@Suite("CLI: dates printed as they are read")
struct DateTextTests {
    static let now = Date(timeIntervalSince1970: 0)

    @Test(
        "dates before the Gregorian reform, at the range's ends and with nine fraction digits print as typed",
        arguments: [
            "0001-01-01T00:00:00Z", "1000-01-01T00:00:00Z", "1582-10-04T00:00:00Z", "1582-10-14T00:00:00Z",
            "1582-10-15T00:00:00Z", "1900-02-28T23:59:59Z", "2000-02-29T12:00:00Z", "2026-11-29T08:30:00.5Z",
            "2026-11-29T08:30:00.125Z", "9999-12-31T23:59:59Z",
        ])
    func exactDatesPrintAsTyped(_ text: String) throws {
        let date = try #require(DateArgument.parse(text, now: Self.now))
        #expect(DateArgument.text(date) == text)
    }

    @Test("the last instant of 9999 stays in 9999 and reads back to itself")
    func lastInstantStaysInItsSecond() throws {
        let date = try #require(DateArgument.parse("9999-12-31T23:59:59.999999999Z", now: Self.now))
        let text = DateArgument.text(date)
        #expect(text.hasPrefix("9999-12-31T23:59:59."), "\(text)")
        #expect(DateArgument.parse(text, now: Self.now) == date)
    }

    @Test("every accepted date prints as text that reads back to the same stored value (10,000 seeded dates)")
    func everyAcceptedDateRoundTrips() throws {
        var random = SeededGenerator(seed: 23)
        var failures: [String] = []
        for _ in 0..<10_000 {
            let year = Int.random(in: 1...9999, using: &random)
            let month = Int.random(in: 1...12, using: &random)
            let day = Int.random(in: 1...28, using: &random)
            var text = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day,
                Int.random(in: 0...23, using: &random), Int.random(in: 0...59, using: &random),
                Int.random(in: 0...59, using: &random))
            let digits = Int.random(in: 0...9, using: &random)
            if digits > 0 {
                text += "." + String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            }
            let hours = Int.random(in: 0...14, using: &random)
            text +=
                Bool.random(using: &random) ? "Z" : String(format: "%@%02d:%02d", hours % 2 == 0 ? "+" : "-", hours, 30)
            guard let date = DateArgument.parse(text, now: Self.now) else { continue }
            let shown = DateArgument.text(date)
            if DateArgument.parse(shown, now: Self.now) != date { failures.append("\(text) -> \(shown)") }
            if failures.count > 5 { break }
        }
        #expect(failures == [])
    }

    @Test("dates of other clients beyond years 1 to 9999 are shown with a signed year, never a trap")
    func datesBeyondTheRangeAreShown() {
        #expect(DateArgument.text(Date(timeIntervalSinceReferenceDate: 1e13)).hasPrefix("+"))
        #expect(DateArgument.text(Date(timeIntervalSinceReferenceDate: -1e12)).hasPrefix("-"))
        #expect(DateArgument.text(Date(timeIntervalSinceReferenceDate: 1e300)).contains("not a date"))
    }
}

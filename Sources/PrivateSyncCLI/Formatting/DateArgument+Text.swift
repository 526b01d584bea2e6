import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DateArgument {
    /// A date as output shows it, in the calendar ``parse(_:now:)`` reads: ISO 8601 in UTC, proleptic Gregorian, so
    /// that every date the parser accepts prints as text it reads back to the very same stored value.
    ///
    /// Foundation's ISO 8601 style uses a calendar with the Julian cut-over, so a date before 1582-10-15 printed days
    /// away from the one typed (`0001-01-01` as `0001-01-03`), and writing the shown value back moved it further at
    /// every round trip; and it showed milliseconds, so `23:59:59.9999Z` printed as the next day, which `record edit`
    /// then refused. Here the fraction has the fewest digits (none to nine) that read back to the same stored value,
    /// and never rounds up into the next second. A date outside years 1 to 9999 (another client's) is shown with a
    /// signed, extended year, as ISO 8601 allows; the parser does not read those.
    ///
    /// - Parameter date: The date.
    /// - Returns: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
    static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "(not a date: \(seconds) seconds since 1970)" }
        let whole = seconds.rounded(.down)
        let second = Int64(whole)
        let fraction = seconds - whole
        if let text = shortestText(second: second, fraction: fraction, of: date) { return text }
        // A time near the end of year 9999 is held to ~30 µs: `…59.999999999` is stored as the next second, which the
        // parser does not read (year 10000). It is shown in the second it was typed in, with the nines that read back.
        var nines = ""
        for _ in 1...9 {
            nines += "9"
            let text = base(second - 1) + "." + nines + "Z"
            if readsBack(text, date) { return text }
        }
        return shortestText(second: second, fraction: fraction, of: nil) ?? base(second) + "Z"
    }

    /// Whether `text` is read as exactly `date`.
    private static func readsBack(_ text: String, _ date: Date) -> Bool {
        parse(text, now: date)?.timeIntervalSinceReferenceDate == date.timeIntervalSinceReferenceDate
    }

    /// The text of a time in second `second` (since 1970) plus `fraction`, with the fewest fraction digits that read
    /// back to `date` (truncated, never rounded, so it stays in its second); `nil` when none does. Without `date`,
    /// the fraction to nine digits.
    private static func shortestText(second: Int64, fraction: Double, of date: Date?) -> String? {
        let base = base(second)
        guard fraction > 0 else {
            let text = base + "Z"
            return date.map { readsBack(text, $0) } ?? true ? text : nil
        }
        var digits = ""
        var power: Int64 = 1
        for count in 1...9 {
            power *= 10
            let scaled = Int64((fraction * Double(power)).rounded(.down))
            digits = pad(scaled, count)
            guard let date else { continue }
            // The truncated digits, or the next ones up (within the second) when the reading rounds the other way.
            for candidate in [digits, pad(min(scaled + 1, power - 1), count)] {
                let text = base + "." + candidate + "Z"
                if readsBack(text, date) { return text }
            }
        }
        return date == nil ? base + "." + digits + "Z" : nil
    }

    /// `YYYY-MM-DDTHH:MM:SS` of second `second` since 1970, the year signed and extended outside 1 to 9999.
    private static func base(_ second: Int64) -> String {
        let days = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        let time = second - days * 86_400
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        let yearText =
            (1...9999).contains(year)
            ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), year.magnitude > 9999 ? 5 : 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(time / 3600, 2)):\(pad(time / 60 % 60, 2)):"
            + pad(time % 60, 2)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a date typed on the command line: exactly the forms docs/cli.md lists, and nothing else.
///
/// A date that is read loosely is silently changed (a missing zone taken as midnight, February 30 rolled into
/// March, hour 25 into the next day), and a changed value then syncs and overwrites the right one everywhere. So
/// every field is range-checked, the whole text must match, and anything else is refused with the accepted forms.
enum DateArgument {
    /// The forms accepted, as the refusal message and docs/cli.md state them.
    static let acceptedForms =
        "YYYY-MM-DD (midnight UTC), YYYY-MM-DDTHH:MM:SS with optional .fraction (1 to 9 digits) and a zone, Z or "
        + "+HH:MM or -HH:MM (such as 2026-11-29T08:30:00Z or 2026-11-29T09:30:00.5+01:00), or 'now'"

    /// Parses a date.
    ///
    /// - Parameters:
    ///   - text: The text as typed.
    ///   - now: What `now` means.
    /// - Returns: The date, or `nil` when `text` is not exactly one of ``acceptedForms`` or names no real instant
    ///   (February 30, hour 24, minute 60, second 60: a `Date` cannot hold a leap second).
    static func parse(_ text: String, now: Date) -> Date? {
        if text == "now" { return now }
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count >= 20 else { return nil }
        guard let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(bytes, 5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8, 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
            return nil
        }
        let midnight = Double(daysSinceEpoch(year: year, month: month, day: day)) * 86_400
        if bytes.count == 10 { return Date(timeIntervalSince1970: midnight) }

        guard bytes[10] == UInt8(ascii: "T"), let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"), let second = number(bytes, 17, 2),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            let start = index + 1
            var end = start
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            guard (1...9).contains(end - start),
                let value = Double("0." + String(decoding: bytes[start..<end], as: UTF8.self))
            else { return nil }
            fraction = value
            index = end
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(bytes, index + 1, 2),
                bytes[index + 3] == UInt8(ascii: ":"), let minutes = number(bytes, index + 4, 2), hours <= 23,
                minutes <= 59
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let seconds = Double(hour * 3600 + minute * 60 + second - offset)
        return Date(timeIntervalSince1970: midnight + seconds + fraction)
    }

    /// The value of `count` ASCII digits at `start`, or `nil` if any is not a digit (no sign, no space).
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<start + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`):
    /// plain arithmetic, so no calendar or time zone database can bend it.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// The proleptic Gregorian calendar in UTC, as day numbers: what the status copy and the CLI's dates print with,
/// without Foundation's calendars (which pull in locale data, and cut over to the Julian calendar in 1582).
package enum CivilCalendar {
    /// The year, month (1 to 12) and day (1 to 31) of a day number since 1970-01-01, by Howard Hinnant's
    /// `civil_from_days`; exact for every day an `Int64` of seconds can reach.
    ///
    /// - Parameter days: Days since 1970-01-01, negative before it.
    /// - Returns: The calendar date.
    package static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

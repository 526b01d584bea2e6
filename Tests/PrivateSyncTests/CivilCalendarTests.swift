import Testing

@testable import PrivateSync

@Suite("The civil calendar: day numbers to proleptic Gregorian dates, in UTC")
struct CivilCalendarTests {
    /// Days either side of the epoch, the leap days of 2000 (divisible by 400) and 1900 (by 100 only: none), year 1
    /// (before the Julian cut-over Foundation would apply), a negative year and year 9999's last day.
    @Test(
        "a day number reads as its date",
        arguments: [
            (0, 1970, 1, 1), (-1, 1969, 12, 31), (11_016, 2000, 2, 29), (11_017, 2000, 3, 1),
            (-25_508, 1900, 3, 1), (-25_509, 1900, 2, 28), (-719_162, 1, 1, 1), (-719_163, 0, 12, 31),
            (-719_529, -1, 12, 31), (2_932_896, 9999, 12, 31),
        ] as [(Int64, Int64, Int64, Int64)])
    func dayNumberReadsAsItsDate(days: Int64, year: Int64, month: Int64, day: Int64) {
        let date = CivilCalendar.date(fromDays: days)
        #expect(date.year == year && date.month == month && date.day == day)
    }
}

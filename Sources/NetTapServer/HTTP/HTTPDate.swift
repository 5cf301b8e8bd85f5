import Foundation

/// The IMF-fixdate form of a time for the `Date` header, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
/// Computed with integer calendar arithmetic (no formatter, no locale) and cached per second,
/// because every response carries one.
struct HTTPDate {
    private var second: Int = .min
    private var cached = ""

    mutating func current(now: Date = Date()) -> String {
        let epochSecond = Int(now.timeIntervalSince1970.rounded(.down))
        if epochSecond != second {
            second = epochSecond
            cached = Self.format(epochSecond: epochSecond)
        }
        return cached
    }

    static func format(epochSecond: Int) -> String {
        let days = epochSecond >= 0 ? epochSecond / 86_400 : (epochSecond - 86_399) / 86_400
        let secondOfDay = epochSecond - days * 86_400
        // Civil date from days since 1970-01-01 (the era-based algorithm for the proleptic Gregorian calendar).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday
        return "\(weekdays[weekday]), \(pad(day)) \(months[month - 1]) \(year) "
            + "\(pad(secondOfDay / 3_600)):\(pad(secondOfDay % 3_600 / 60)):\(pad(secondOfDay % 60)) GMT"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

import Foundation

/// ISO 8601 timestamps at microsecond resolution, formatted and parsed without Foundation formatters.
///
/// HAR export quantizes every instant to whole microseconds since 1970 before it derives anything
/// from it, so that writing, reading and writing again gives the same text (the round-trip
/// guarantee of `HARWriter`). Written by hand because `ISO8601DateFormatter` keeps milliseconds only
/// and is slow on the export path.
enum ISOTimestamp {
    /// Microseconds since 1970 of `date`, rounded; clamped to years 1 ... 9999 so that no input traps.
    static func micros(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard value.isFinite else { return value < 0 ? minMicros : maxMicros }
        return Int64(min(max(value, Double(minMicros)), Double(maxMicros)))
    }

    /// The date at `micros` microseconds since 1970.
    static func date(micros: Int64) -> Date {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z.
    static let minMicros: Int64 = -62_135_596_800_000_000
    static let maxMicros: Int64 = 253_402_300_799_999_999

    /// "2026-05-28T20:26:40.250Z": three fractional digits when the instant falls on a millisecond,
    /// six otherwise, none dropped.
    static func string(micros: Int64) -> String {
        var output = JSONOutput(capacity: 32)
        output.timestampText(micros: micros)
        return String(decoding: output.data, as: UTF8.self)
    }

    /// The calendar fields of an instant, in UTC.
    struct Parts {
        var year, month, day, hour, minute, second: Int64
        /// Microseconds within the second.
        var fraction: Int64

        init(micros: Int64) {
            let clamped = min(max(micros, ISOTimestamp.minMicros), ISOTimestamp.maxMicros)
            var seconds = clamped / 1_000_000
            var fraction = clamped % 1_000_000
            if fraction < 0 {
                fraction += 1_000_000
                seconds -= 1
            }
            var days = seconds / 86_400
            var secondOfDay = seconds % 86_400
            if secondOfDay < 0 {
                secondOfDay += 86_400
                days -= 1
            }
            (year, month, day) = ISOTimestamp.civil(fromDays: days)
            hour = secondOfDay / 3600
            minute = secondOfDay / 60 % 60
            second = secondOfDay % 60
            self.fraction = fraction
        }
    }

    /// Parses "YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm|±hhmm)" into microseconds since 1970.
    /// Fractions of any length are accepted and rounded to the microsecond; a space may stand for
    /// "T". A time zone is required, as HAR requires it: without one the instant is ambiguous.
    static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    private static func parse(utf8: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        func digits(_ count: Int) -> Int64? {
            guard index + count <= utf8.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<count {
                let byte = utf8[index + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < utf8.count, characters.contains(utf8[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
              let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var fractionMicros: Int64 = 0
        if index < utf8.count, utf8[index] == UInt8(ascii: ".") || utf8[index] == UInt8(ascii: ",") {
            index += 1
            var scale: Int64 = 100_000
            var roundUp = false
            let start = index
            while index < utf8.count, utf8[index] >= UInt8(ascii: "0"), utf8[index] <= UInt8(ascii: "9") {
                let digit = Int64(utf8[index] - UInt8(ascii: "0"))
                if scale > 0 {
                    fractionMicros += digit * scale
                    scale /= 10
                } else if index - start == 6 {
                    roundUp = digit >= 5
                }
                index += 1
            }
            guard index > start else { return nil }
            if roundUp { fractionMicros += 1 }
        }
        guard index < utf8.count else { return nil }
        var offsetSeconds: Int64 = 0
        switch utf8[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = utf8[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = digits(2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let offsetMinutes = digits(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard index == utf8.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return seconds * 1_000_000 + fractionMicros
    }

    // Days from the civil calendar and back: the proleptic Gregorian calendar counted in 400-year eras
    // of 146,097 days, with years starting in March so that the leap day falls at the end.

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Parses the dates of `Expires` cookie attributes, which servers write in several shapes:
/// "Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:00 2015".
///
/// Like the cookie-date algorithm of RFC 6265 (section 5.1.1) it looks for a time, a day, a month
/// name and a year among the tokens, in any order, rather than insisting on one layout.
enum CookieDate {
    /// Microseconds since 1970, or nil when the text has no complete date.
    static func parse(_ text: String) -> Int64? {
        var time: (Int64, Int64, Int64)?
        var day: Int64?
        var month: Int64?
        var year: Int64?
        let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == ":") }
        for token in tokens {
            if time == nil, token.contains(":") {
                let fields = token.split(separator: ":").compactMap { Int64($0) }
                if fields.count == 3 {
                    time = (fields[0], fields[1], fields[2])
                    continue
                }
            }
            if day == nil, token.count <= 2, let value = Int64(token) {
                day = value
                continue
            }
            if month == nil, token.count >= 3, let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                month = Int64(index + 1)
                continue
            }
            if year == nil, token.count == 2 || token.count == 4, let value = Int64(token) {
                year = token.count == 4 ? value : (value >= 70 ? 1900 + value : 2000 + value)
                continue
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year,
              (1...31).contains(day), hour <= 23, minute <= 59, second <= 59, year >= 1601
        else { return nil }
        let days = ISOTimestamp.daysFromCivil(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}

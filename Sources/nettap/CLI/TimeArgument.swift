import Foundation
import NetTapCore
import NetTapStore

/// The instants `--since` and `--until` accept: an ISO 8601 time with a zone, a local date and
/// time as `nettap list` prints them, or an age counted back from now.
///
/// ```
/// --since 2026-05-28T14:00:00Z      --since 2026-05-28T16:00:00+02:00
/// --since "2026-05-28 16:00:05.250" --since 2026-05-28      (local time)
/// --since 15m  --since 2h  --since 7d                        (ago)
/// ```
enum TimeArgument {
    /// What to say when a value is none of the accepted forms.
    static let expected = "an ISO 8601 time (2026-05-28T14:00:00Z), a local time (2026-05-28 14:00) or an age (15m, 2h, 7d)"

    /// The instant `text` names, or nil when it is none of the accepted forms.
    static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let last = trimmed.last, last.isLetter, trimmed.dropLast().allSatisfy({ $0.isNumber || $0 == "." }),
            let age = try? RetentionPolicy.parseAge(trimmed)
        {
            return now.addingTimeInterval(-age)
        }
        if let date = ExchangeJSON.parseDate(trimmed) { return date }
        return localDate(trimmed)
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD HH:MM:SS.mmm` (or with
    /// `T`) in the local time zone: what `nettap list` shows can be pasted back.
    private static func localDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.isLenient = false
        let normalized = text.replacingOccurrences(of: "T", with: " ")
        for format in ["yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: normalized) { return date }
        }
        return nil
    }
}

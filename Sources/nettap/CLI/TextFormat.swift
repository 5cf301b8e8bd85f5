import Foundation

/// How the human-readable output writes sizes, durations and instants. (`--json` output writes
/// plain numbers and ISO 8601 instead.)
enum TextFormat {
    /// `512 B`, `1.2 KB`, `3.4 MB` (powers of 1000, as `--max-size` reads them); `-` when unknown.
    static func bytes(_ count: Int64?) -> String {
        guard let count else { return "-" }
        let value = Double(count)
        switch abs(value) {
        case ..<1000: return "\(count) B"
        case ..<999_950: return String(format: "%.1f KB", value / 1e3)
        case ..<999_950_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.1f GB", value / 1e9)
        }
    }

    /// `0.4 ms`, `86 ms`, `1.25 s`; `-` when unknown.
    static func duration(_ seconds: TimeInterval?) -> String {
        guard let seconds, seconds.isFinite else { return "-" }
        switch seconds {
        case ..<0.00995: return String(format: "%.1f ms", seconds * 1000)
        case ..<0.9995: return String(format: "%.0f ms", seconds * 1000)
        default: return String(format: "%.2f s", seconds)
        }
    }

    /// `2026-05-28 16:26:40.250` in the local time zone (`TZ`), to the millisecond: the form
    /// `--since` and `--until` read back. Cut down, not rounded, so that `--since` with a time
    /// copied from a listing includes that exchange.
    static func localTime(_ date: Date) -> String {
        time(date, in: TimeZone.current, format: "%04d-%02d-%02d %02d:%02d:%02d.%03d")
    }

    /// `2026-05-28T14:26:40.250Z`, cut down to the millisecond like `localTime`, so that `show`'s
    /// two forms of one instant agree. (The exchange JSON rounds instead; docs/exchange-json.md.)
    static func utcTime(_ date: Date) -> String {
        time(date, in: TimeZone(identifier: "UTC") ?? TimeZone.current, format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ")
    }

    private static func time(_ date: Date, in zone: TimeZone, format: String) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard millis.isFinite, abs(millis) < 1e17 else { return "-" }
        let whole = Int64(millis)
        let fraction = ((whole % 1000) + 1000) % 1000
        let second = Date(timeIntervalSince1970: Double((whole - fraction) / 1000))
        let parts = Calendar(identifier: .gregorian).dateComponents(in: zone, from: second)
        return String(
            format: format, parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, Int(fraction))
    }

    /// The local time followed by its UTC offset, for `nettap show`: `2026-05-28 16:26:40.250 +02:00`.
    static func localTimeWithZone(_ date: Date) -> String {
        let offset = TimeZone.current.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return localTime(date) + " " + sign + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// `text` cut to `width` characters, ending with `…` when it was longer.
    static func truncated(_ text: String, to width: Int) -> String {
        guard text.count > width, width > 1 else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` padded with spaces to `width` characters.
    static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

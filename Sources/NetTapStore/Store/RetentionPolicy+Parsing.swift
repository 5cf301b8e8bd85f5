import Foundation

extension RetentionPolicy {
    /// Reads an age such as `7d`, `12h`, `30m`, `45s` or `2w` (a number, then one unit) into
    /// seconds, for `nettap prune --older-than` and retention options. The error names the text.
    ///
    /// ```swift
    /// let cutoff = Date().addingTimeInterval(-(try RetentionPolicy.parseAge("7d")))
    /// ```
    public static func parseAge(_ text: String) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, let seconds = units[unit], let number = Double(trimmed.dropLast()),
            number.isFinite, number >= 0
        else {
            throw ExchangeStoreError.invalidArgument(
                "\"\(text)\" is not an age: give a number and a unit, s, m, h, d or w (for example 7d)")
        }
        return number * seconds
    }

    /// Reads a size such as `200MB`, `1.5GB`, `512KiB` or `1000` (bytes) into bytes. KB, MB and
    /// GB are powers of 1000; KiB, MiB and GiB powers of 1024.
    ///
    /// ```swift
    /// let limit = try RetentionPolicy.parseSize("200MB")   // 200_000_000
    /// ```
    public static func parseSize(_ text: String) throws -> Int64 {
        let units: [(String, Double)] = [
            ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("k", 1e3),
            ("m", 1e6), ("g", 1e9), ("b", 1),
        ]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var multiplier = 1.0
        var digits = Substring(trimmed)
        if let (suffix, value) = units.first(where: { trimmed.hasSuffix($0.0) }) {
            multiplier = value
            digits = trimmed.dropLast(suffix.count)
        }
        guard let number = Double(digits.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0,
            number * multiplier < 9e18
        else {
            throw ExchangeStoreError.invalidArgument(
                "\"\(text)\" is not a size: give a number of bytes, optionally with KB, MB, GB, KiB, MiB or GiB (for example 200MB)")
        }
        return Int64((number * multiplier).rounded())
    }
}

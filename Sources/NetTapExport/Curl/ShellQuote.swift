import Foundation

/// Quoting for POSIX `sh` (dash, bash, zsh): every word NetTap puts in a command is either plain
/// or single-quoted, so `$`, backticks, `\`, `!` and newlines are never interpreted.
///
/// ```swift
/// ShellQuote.quote("it's $HOME")   // 'it'\''s $HOME'
/// ```
public enum ShellQuote {
    /// `word` as one shell word: unchanged when it has only characters no shell treats specially,
    /// otherwise in single quotes, with each `'` written as `'\''` (close, escaped quote, reopen).
    public static func quote(_ word: String) -> String {
        if !word.isEmpty, word.utf8.allSatisfy(isPlain) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// A `printf` format that prints exactly `bytes`, single-quoted: the portable way to pass bytes
    /// that are not text (NUL included, which no shell word can hold) to a command's input.
    /// Printable ASCII stays itself, `%` becomes `%%`, `\` becomes `\\`, and every other byte a
    /// three-digit octal escape, which POSIX `printf` decodes in its format.
    public static func printfFormat(_ bytes: Data) -> String {
        var format = "'"
        format.reserveCapacity(bytes.count * 2 + 2)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "%"): format += "%%"
            case UInt8(ascii: "\\"): format += #"\\"#
            case UInt8(ascii: "'"): format += #"\047"#
            case 0x20..<0x7F: format.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let octal = String(byte, radix: 8)
                format += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return format + "'"
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}

import Foundation

/// Literal search and replace over bytes, for scrubbing reflected secrets out of header values and
/// bodies. `String.contains` and `replacingOccurrences(of:with:)` went through NSString on Linux
/// (CFStringFind and a UTF-16 copy of the text), which made scrubbing most of what redacting an
/// exchange cost (BENCHMARKS.md, redaction).
enum ByteReplacement {
    /// `haystack` with every occurrence of `needle` replaced by `replacement`, left to right and
    /// without overlaps; nil when `needle` does not occur (or is empty).
    static func replacingAll(_ needle: [UInt8], with replacement: [UInt8], in haystack: [UInt8]) -> [UInt8]? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { text -> [UInt8]? in
            needle.withUnsafeBufferPointer { pattern -> [UInt8]? in
                guard let textBase = text.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var output: [UInt8] = []
                var found = false
                var copied = 0
                var index = 0
                let lastStart = text.count - pattern.count
                let first = pattern[0]
                while index <= lastStart {
                    if text[index] == first, memcmp(textBase + index, patternBase, pattern.count) == 0 {
                        if !found {
                            output.reserveCapacity(text.count)
                            found = true
                        }
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<index]))
                        output.append(contentsOf: replacement)
                        index += pattern.count
                        copied = index
                    } else {
                        index += 1
                    }
                }
                guard found else { return nil }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...]))
                return output
            }
        }
    }

    /// `bytes` with each needle replaced in turn, in the order given (so a longer secret goes
    /// before a shorter one inside it); nil when none occurs.
    static func replacingEach(_ needles: [[UInt8]], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8]? {
        var result: [UInt8]?
        for needle in needles {
            if let replaced = replacingAll(needle, with: replacement, in: result ?? bytes) { result = replaced }
        }
        return result
    }
}

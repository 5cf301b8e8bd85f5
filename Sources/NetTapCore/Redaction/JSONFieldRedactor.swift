import Foundation

/// Replaces the values of sensitive keys in a JSON document without re-serializing it.
///
/// A small scanner rather than `JSONSerialization`, so that key order, spacing and numbers stay as
/// they were, and so that a truncated body (cut at the capture cap) is still redacted up to its end.
struct JSONFieldRedactor {
    let policy: RedactionPolicy

    private enum Container {
        case object(expectingKey: Bool)
        case array
    }

    func redact(_ input: Data) -> Data {
        redactCollecting(input).data
    }

    /// Redacts, and returns the values it removed (string values without their quotes), so that
    /// the same secrets can be scrubbed where they are reflected elsewhere.
    func redactCollecting(_ input: Data) -> (data: Data, removed: [String]) {
        var removed: [String] = []
        let bytes = [UInt8](input)
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        let replacement = Array("\"\(policy.replacement)\"".utf8)
        var stack: [Container] = []
        /// Where the last key read sits in `bytes`, quotes included.
        var lastKey: Range<Int>?
        var index = 0

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object(expectingKey: true))
                output.append(byte)
                index += 1
            case UInt8(ascii: "["):
                stack.append(.array)
                output.append(byte)
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                output.append(byte)
                index += 1
            case UInt8(ascii: ","):
                if case .object = stack.last { stack[stack.count - 1] = .object(expectingKey: true) }
                output.append(byte)
                index += 1
            case UInt8(ascii: ":"):
                output.append(byte)
                index += 1
                if case .object = stack.last, let key = lastKey, isSensitiveKey(bytes, key) {
                    // Copy whitespace, then replace the whole value, whatever its type.
                    while index < bytes.count, Self.isSpace(bytes[index]) {
                        output.append(bytes[index])
                        index += 1
                    }
                    if index < bytes.count {
                        let end = Self.endOfValue(bytes, from: index)
                        var raw = bytes[index..<end]
                        if raw.first == UInt8(ascii: "\""), raw.count >= 2 { raw = raw.dropFirst().dropLast() }
                        removed.append(String(decoding: raw, as: UTF8.self))
                        index = end
                        output.append(contentsOf: replacement)
                    }
                }
                lastKey = nil
            case UInt8(ascii: "\""):
                let end = Self.endOfString(bytes, from: index)
                if case .object(expectingKey: true) = stack.last {
                    lastKey = index..<end
                    stack[stack.count - 1] = .object(expectingKey: false)
                }
                output.append(contentsOf: bytes[index..<end])
                index = end
            default:
                output.append(byte)
                index += 1
            }
        }
        return (Data(output), removed)
    }

    /// Whether the key whose quoted form is `bytes[quoted]` names a secret. Most keys have no
    /// escapes and are judged on their bytes; only a key with a backslash is decoded first, by a
    /// JSON decoder (making one for every key, and a String of every key, had been most of the
    /// cost of redacting a JSON body).
    private func isSensitiveKey(_ bytes: [UInt8], _ quoted: Range<Int>) -> Bool {
        let inner = bytes[(quoted.lowerBound + 1)..<max(quoted.lowerBound + 1, quoted.upperBound - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return policy.isSensitiveField(utf8: inner) }
        let decoded = (try? JSONDecoder().decode(String.self, from: Data(bytes[quoted])))
            ?? String(decoding: inner, as: UTF8.self)
        return policy.isSensitiveField(decoded)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index just past the string that starts at `start` (or the end of input if it is cut).
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return bytes.count
    }

    /// The index just past the value that starts at `start`: a string, a balanced container, or a literal.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int {
        let first = bytes[start]
        if first == UInt8(ascii: "\"") { return endOfString(bytes, from: start) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            var depth = 0
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index = endOfString(bytes, from: index)
                    continue
                }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { return index + 1 }
                }
                index += 1
            }
            return bytes.count
        }
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isSpace(byte) {
                break
            }
            index += 1
        }
        return index
    }
}

import Foundation
import NetTapCore

/// Reads NDJSON written by `NDJSONWriter` (or anything producing the exchange JSON contract):
/// one exchange per line; blank lines and a final newline are fine, "\r\n" line ends too.
///
/// ```swift
/// let exchanges = try NDJSONReader().decode(data)
/// ```
public struct NDJSONReader: Sendable {
    public init() {}

    /// Calls `each` with the exchange of every line, in order. Throws `NDJSONImportError` at the
    /// first bad line and rethrows what `each` throws; as with `HARReader`, a caller that keeps
    /// exchanges as they come must undo them on a throw.
    public func read(_ data: Data, file: String? = nil, each: (Exchange) throws -> Void) throws {
        let decoder = ExchangeJSON.decoder()
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            lineNumber += 1
            let newline = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            var end = newline
            if end > start, data[data.index(before: end)] == UInt8(ascii: "\r") { end = data.index(before: end) }
            let line = data[start..<end]
            start = newline < data.endIndex ? data.index(after: newline) : data.endIndex
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let exchange: Exchange
            do {
                exchange = try decoder.decode(Exchange.self, from: line)
            } catch let error as DecodingError {
                throw Self.describe(error, line: Data(line), number: lineNumber, file: file)
            }
            try each(exchange)
        }
    }

    /// Every line's exchange, or the first bad line's error; never a part of the file.
    public func decode(_ data: Data, file: String? = nil) throws(NDJSONImportError) -> [Exchange] {
        var exchanges: [Exchange] = []
        do {
            try read(data, file: file) { exchanges.append($0) }
        } catch let error as NDJSONImportError {
            throw error
        } catch {
            throw NDJSONImportError(file: file, line: 0, reason: "\(error)")
        }
        return exchanges
    }

    /// `decode(_:file:)` over a file; errors name the file.
    public func decode(contentsOf url: URL) throws(NDJSONImportError) -> [Exchange] {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw NDJSONImportError(file: url.path, line: 0, reason: "cannot read the file: \(error.localizedDescription)")
        }
        return try decode(data, file: url.path)
    }

    /// A decoding error as "line N: field.path: what". Syntax errors are located again with
    /// NetTap's own parser, because Foundation's message gives no usable column.
    static func describe(_ error: DecodingError, line: Data, number: Int, file: String?) -> NDJSONImportError {
        let syntax = line.withUnsafeBytes { bytes -> JSONSyntaxError? in
            do throws(JSONSyntaxError) {
                _ = try JSONParser.parseDocument(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let syntax {
            return NDJSONImportError(file: file, line: number, column: syntax.column, reason: syntax.reason)
        }
        func path(_ codingPath: [CodingKey]) -> String? {
            guard !codingPath.isEmpty else { return nil }
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return NDJSONImportError(
                file: file, line: number, field: path(context.codingPath),
                reason: "expected \(Self.name(of: type)), found \(Self.found(in: context.debugDescription))")
        case .valueNotFound(let type, let context):
            return NDJSONImportError(
                file: file, line: number, field: path(context.codingPath),
                reason: "expected \(Self.name(of: type)), found null")
        case .keyNotFound(let key, let context):
            return NDJSONImportError(
                file: file, line: number, field: path(context.codingPath + [key]), reason: "missing")
        case .dataCorrupted(let context):
            return NDJSONImportError(
                file: file, line: number, field: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return NDJSONImportError(file: file, line: number, reason: "\(error)")
        }
    }

    /// "number" from Foundation's "Expected to decode String but found number instead.", or the
    /// whole message when it is worded otherwise.
    private static func found(in message: String) -> String {
        guard let start = message.range(of: "but found "), let end = message.range(of: " instead", range: start.upperBound..<message.endIndex)
        else { return message }
        return String(message[start.upperBound..<end.lowerBound])
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: return "a number"
        default:
            let described = "\(type)"
            if described.hasPrefix("Array") || described.hasPrefix("[") { return "an array" }
            if described.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(described)"
        }
    }
}

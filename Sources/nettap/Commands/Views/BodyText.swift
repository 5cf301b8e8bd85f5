import Foundation
import NetTapCore

/// A captured body as `nettap show` prints it: a heading with its size and notes, then the bytes
/// by content type (JSON indented, text as is, anything else as a hex dump excerpt).
enum BodyText {
    /// Bytes of a binary body shown in the hex dump.
    static let hexLimit = 256

    static func render(_ body: CapturedBody, title: String) -> [String] {
        var facts: [String] = []
        if let size = body.size { facts.append("\(size) bytes") } else { facts.append("size unknown") }
        if let contentType = body.contentType { facts.append(contentType) }
        var lines = ["\(title) (\(facts.joined(separator: ", ")))"]
        if body.isTruncated {
            lines.append("[truncated: \(body.data.count) of \(body.size.map(String.init) ?? "unknown") bytes captured]")
        }
        if body.isRedacted { lines.append("[redacted: secrets in this body were replaced before it was stored]") }
        if let reason = body.unavailableReason { lines.append("[unavailable: \(reason)]") }
        if body.data.isEmpty {
            if body.unavailableReason == nil { lines.append("[empty]") }
            return lines
        }
        switch kind(of: body) {
        case .json(let indented):
            lines.append(indented)
        case .text(let text):
            lines.append(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        case .binary:
            lines += HexDump.lines(body.data, limit: hexLimit)
            if body.data.count > hexLimit {
                lines.append("[\(body.data.count - hexLimit) more bytes not shown]")
            }
        }
        return lines
    }

    enum Kind: Equatable {
        case json(String)
        case text(String)
        case binary
    }

    /// By the declared type: JSON types indented (as text when the bytes are not JSON), textual
    /// types as they are, anything else binary. Untyped bodies are judged by their bytes. Text with
    /// control characters (which a terminal would act on) and bytes that are not UTF-8 are binary.
    static func kind(of body: CapturedBody) -> Kind {
        let type = body.contentType?.lowercased() ?? ""
        guard let decoded = String(data: body.data, encoding: .utf8) else { return .binary }
        // CRLF line ends print as lines; any other carriage return could overwrite what is shown.
        let text = decoded.replacingOccurrences(of: "\r\n", with: "\n")
        let printable = !text.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F
        }
        let declaredJSON = type.contains("json")
        if declaredJSON, let indented = JSONIndenter.indent(body.data) { return .json(indented) }
        if type.isEmpty, printable, text.first == "{" || text.first == "[", let indented = JSONIndenter.indent(body.data) {
            return .json(indented)
        }
        if declaredJSON || isText(type) || type.isEmpty {
            return printable ? .text(text) : .binary
        }
        return .binary
    }

    private static func isText(_ type: String) -> Bool {
        type.hasPrefix("text/") || type.contains("xml") || type.contains("javascript")
            || type.contains("x-www-form-urlencoded") || type.contains("graphql") || type.contains("yaml")
            || type.contains("html")
    }
}

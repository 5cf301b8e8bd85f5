import Foundation
import NetTapCore

/// Turns exchanges into `curl` commands that send the same request again: method, URL, headers in
/// their order, and the body byte for byte.
///
/// - Every word is shell-quoted (`ShellQuote`), so values with quotes, `$`, backticks, newlines or
///   any Unicode are passed to curl unchanged.
/// - Text bodies go inline with `--data-raw` (which, unlike `-d`, gives `@` no meaning). Bodies that
///   are not UTF-8 text go to a file in `bodyDirectory` and are sent with `--data-binary @FILE`;
///   without a directory they are piped in with `printf` octal escapes, which handles NUL bytes too.
/// - `Content-Length` is left to curl; `Accept-Encoding` asking for gzip, deflate, br or zstd
///   becomes `--compressed`, so the output is readable. When a body has no `Content-Type`,
///   `-H 'Content-Type:'` stops curl from adding its form default.
/// - Truncated, redacted or unavailable request bodies are named in `#` comment lines above the
///   command: the command then sends what NetTap kept.
///
/// ```swift
/// let curl = CurlExporter(bodyDirectory: URL(fileURLWithPath: "bodies"))
/// print(try curl.command(for: exchange))
/// // curl 'https://api.example.com/items' \
/// //   -H 'Content-Type: application/json' \
/// //   --data-raw '{"name":"it'\''s"}'
/// ```
public struct CurlExporter: Sendable {
    /// Where binary bodies are written (created if needed); nil pipes them in with `printf`.
    public var bodyDirectory: URL?

    public init(bodyDirectory: URL? = nil) {
        self.bodyDirectory = bodyDirectory
    }

    /// One command, possibly over several lines joined by `\`; comment lines come first.
    /// Throws `CurlExportError` only when a body file cannot be written.
    public func command(for exchange: Exchange) throws -> String {
        let request = exchange.request
        var notes: [String] = []
        var arguments: [String] = []
        var stdinBody: Data?

        // Methods are case-sensitive (RFC 9110), so "get" is not GET and keeps its -X.
        let body = request.method == "HEAD" ? nil : request.body
        switch (request.method, body != nil) {
        case ("GET", false), ("POST", true): break
        case ("HEAD", _): arguments.append("--head")
        default: arguments.append("-X " + ShellQuote.quote(request.method))
        }

        var compressed = false
        for field in request.headers {
            let name = field.name.lowercased()
            if name == "content-length" || name.hasPrefix(":") { continue }
            if name == "accept-encoding", Self.asksForCompression(field.value) {
                compressed = true
                continue
            }
            // curl's syntax for a header with an empty value is "Name;".
            let header = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
            arguments.append("-H " + ShellQuote.quote(header))
        }
        if body != nil, request.headers["content-type"] == nil {
            arguments.append("-H " + ShellQuote.quote("Content-Type:"))
        }
        if compressed { arguments.append("--compressed") }

        if let body {
            if body.isTruncated {
                notes.append("request body truncated: the command sends the first \(body.data.count) of "
                    + "\(body.size.map(String.init) ?? "an unknown number of") bytes")
            }
            if body.isRedacted { notes.append("request body redacted before capture") }
            if let reason = body.unavailableReason { notes.append("request body not captured: \(reason)") }
            // UTF-8 text without NUL bytes can travel as a shell word; anything else cannot.
            if !body.data.contains(0), let text = UTF8Text.string(body.data) {
                arguments.append("--data-raw " + ShellQuote.quote(text))
            } else if let directory = bodyDirectory {
                let file = try writeBody(body.data, for: exchange, in: directory)
                arguments.append("--data-binary " + ShellQuote.quote("@" + file.path))
            } else {
                stdinBody = body.data
                arguments.append("--data-binary @-")
            }
        }

        let url = ShellQuote.quote(request.url)
        var first = "curl " + (request.url.hasPrefix("-") ? "--url " + url : url)
        if request.url.contains(where: { "[]{}".contains($0) }) { first += " --globoff" }
        if let stdinBody { first = "printf " + ShellQuote.printfFormat(stdinBody) + " | " + first }

        // A reason with a line break must not end the comment and start a command.
        let comments = notes.map { note in
            "# NetTap: " + note.split(whereSeparator: \.isNewline).joined(separator: " ")
        }
        let command = ([first] + arguments).joined(separator: " \\\n  ")
        return (comments + [command]).joined(separator: "\n")
    }

    /// Commands for many exchanges, separated by blank lines, ending with a newline.
    /// (`CurlWriter` writes the same text to a sink as it goes.)
    public func commands(for exchanges: some Sequence<Exchange>) throws -> String {
        try exchanges.map(command(for:)).joined(separator: "\n\n") + "\n"
    }

    // MARK: Helpers

    static func asksForCompression(_ acceptEncoding: String) -> Bool {
        ASCIIFields.split(acceptEncoding, separator: UInt8(ascii: ",")).contains { item in
            let coding = ASCIIFields.split(item, separator: UInt8(ascii: ";")).first ?? ""
            return ["gzip", "x-gzip", "deflate", "br", "zstd"].contains { HTTPHeaders.namesEqual(coding, $0) }
        }
    }

    private func writeBody(_ data: Data, for exchange: Exchange, in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent(exchange.id.uuidString.lowercased() + ".body")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file)
        } catch {
            throw CurlExportError(path: file.path, reason: error.localizedDescription)
        }
        return file
    }
}

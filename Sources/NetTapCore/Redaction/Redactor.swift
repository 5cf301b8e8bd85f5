import Foundation

/// Applies a `RedactionPolicy` to exchanges: headers, URLs (query items), and JSON or form bodies.
///
/// Pure and deterministic; it keeps the shape of what it redacts (cookie names, the auth scheme,
/// the layout of a JSON document) so that a redacted capture still explains the traffic.
///
/// A final class, not a struct: the policy holds a dozen reference-counted buffers (name sets,
/// byte matchers), and a struct would retain and release every one of them each time a capture is
/// redacted. The policy is immutable here, so sharing one instance is safe.
public final class Redactor: Sendable {
    public let policy: RedactionPolicy

    public init(policy: RedactionPolicy) {
        self.policy = policy
    }

    /// Consumes `exchange` and edits it in place, so that the capture path hands its only copy
    /// over instead of copying every field of it.
    public func redact(_ exchange: consuming Exchange) -> Exchange {
        guard !policy.isEmpty else { return exchange }
        // Secrets the request carried are also scrubbed where the response reflects them
        // (echo and debug endpoints, error pages that quote the request).
        let secrets = scrubOrder(secretValues(in: exchange.request))
        redact(&exchange.request)
        // Taken out and put back: edits through optional chaining copied the whole response.
        if var response = exchange.response.take() {
            response.headers.redact(self, scrubbing: secrets)
            if let url = response.url { response.url = redact(url: url) }
            if let body = response.body.take() { response.body = scrub(redact(body: body), secrets: secrets) }
            exchange.response = response
        }
        for index in exchange.redirects.indices {
            exchange.redirects[index].url = redact(url: exchange.redirects[index].url)
            exchange.redirects[index].location = redact(url: exchange.redirects[index].location)
        }
        return exchange
    }

    public func redact(_ request: CapturedRequest) -> CapturedRequest {
        var result = request
        redact(&result)
        return result
    }

    private func redact(_ request: inout CapturedRequest) {
        guard !policy.isEmpty else { return }
        request.url = redact(url: request.url)
        request.headers.redact(self, scrubbing: [])
        if let body = request.body.take() { request.body = redact(body: body) }
    }

    public func redact(_ start: ExchangeStart) -> ExchangeStart {
        var result = start
        result.url = redact(url: start.url)
        return result
    }

    // MARK: Reflected secrets

    /// Secret values in a request, as sent: credentials in sensitive headers, sensitive query and
    /// form values, sensitive JSON values. Values shorter than 4 characters are too common to scrub.
    func secretValues(in request: CapturedRequest) -> Set<String> {
        var secrets: Set<String> = []
        for field in request.headers where policy.isSensitiveHeader(field.name) {
            switch field.name.lowercased() {
            case "cookie", "set-cookie":
                for pair in field.value.split(separator: ";") {
                    if let equals = pair.firstIndex(of: "=") { secrets.insert(String(pair[pair.index(after: equals)...])) }
                }
            case "authorization", "proxy-authorization":
                secrets.insert(String(field.value.split(separator: " ", maxSplits: 1).last ?? ""))
            default:
                secrets.insert(field.value)
            }
        }
        if let question = request.url.utf8.firstIndex(of: UInt8(ascii: "?")) {
            let query = request.url[request.url.index(after: question)...]
            let end = query.utf8.firstIndex(of: UInt8(ascii: "#")) ?? query.endIndex
            secrets.formUnion(sensitiveFormValues(String(query[..<end])))
        }
        if policy.redactsBodies, let body = request.body {
            let type = body.contentType ?? ""
            if type.containsASCIICaseInsensitive("json") || type.isEmpty {
                secrets.formUnion(JSONFieldRedactor(policy: policy).redactCollecting(body.data).removed)
            } else if type.containsASCIICaseInsensitive("x-www-form-urlencoded"), let text = String(data: body.data, encoding: .utf8) {
                secrets.formUnion(sensitiveFormValues(text))
            }
        }
        return secrets.filter { $0.count >= 4 && $0 != policy.replacement }
    }

    private func sensitiveFormValues(_ text: String) -> [String] {
        text.split(separator: "&").compactMap { pair in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            guard policy.isSensitiveField(Self.formDecoded(pair[..<equals])) else { return nil }
            let raw = String(pair[pair.index(after: equals)...])
            return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
        }
    }

    /// The secrets as bytes, longest first (ties in byte order, so that the result never depends
    /// on the order of a set), the order in which they are scrubbed.
    private func scrubOrder(_ secrets: Set<String>) -> [[UInt8]] {
        secrets.map { Array($0.utf8) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
    }

    /// The value a header field has after redaction and scrubbing, or nil when it stays as it is.
    fileprivate func redactedValue(of field: HTTPHeaderField, scrubbing secrets: [[UInt8]], replacement: [UInt8]) -> String? {
        let redacted = redactedValue(of: field)
        guard !secrets.isEmpty else { return redacted }
        let value = redacted ?? field.value
        return ByteReplacement.replacingEach(secrets, with: replacement, in: Array(value.utf8))
            .map { String(decoding: $0, as: UTF8.self) } ?? redacted
    }

    /// Scrubs a body that is UTF-8 text; other bodies are left as they are, because the bytes of a
    /// short secret can turn up by chance in an image or an archive.
    private func scrub(_ body: CapturedBody, secrets: [[UInt8]]) -> CapturedBody {
        guard !secrets.isEmpty, !body.data.isEmpty,
            let scrubbed = ByteReplacement.replacingEach(secrets, with: Array(policy.replacement.utf8), in: [UInt8](body.data)),
            String(data: body.data, encoding: .utf8) != nil
        else { return body }
        var result = body
        result.data = Data(scrubbed)
        result.isRedacted = true
        return result
    }

    // MARK: Headers

    public func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        var result = headers
        result.redact(self, scrubbing: [])
        return result
    }

    /// The redacted value of a sensitive header field, or nil when the field is not sensitive.
    private func redactedValue(of field: HTTPHeaderField) -> String? {
        guard policy.isSensitiveHeader(field.name) else { return nil }
        switch field.name.lowercased() {
        case "cookie":
            return redactCookiePairs(field.value, separator: ";")
        case "set-cookie":
            return redactSetCookie(field.value)
        case "authorization", "proxy-authorization":
            // Keep the scheme ("Bearer", "Basic"): it explains the request without revealing it.
            let parts = field.value.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { return "\(parts[0]) \(policy.replacement)" }
            return policy.replacement
        default:
            return policy.replacement
        }
    }

    private func redactCookiePairs(_ value: String, separator: Character) -> String {
        value.split(separator: separator, omittingEmptySubsequences: false).map { pair in
            let trimmed = pair.drop { $0 == " " }
            let leading = String(pair.prefix(pair.count - trimmed.count))
            guard let equals = trimmed.firstIndex(of: "=") else { return String(pair) }
            return leading + trimmed[..<equals] + "=" + policy.replacement
        }.joined(separator: String(separator))
    }

    private func redactSetCookie(_ value: String) -> String {
        // Only the first pair is the cookie; the rest are attributes (Path, Expires, HttpOnly).
        guard let semicolon = value.firstIndex(of: ";") else { return redactCookiePairs(value, separator: ";") }
        return redactCookiePairs(String(value[..<semicolon]), separator: ";") + value[semicolon...]
    }

    // MARK: URLs and forms

    /// Replaces the values of sensitive query items, leaving the rest of the URL byte for byte.
    public func redact(url: String) -> String {
        // Byte search: URLs are ASCII once percent-encoded, and Character search was a hot spot.
        guard let question = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let afterQuery = url[url.index(after: question)...]
        let fragmentStart = afterQuery.utf8.firstIndex(of: UInt8(ascii: "#")) ?? afterQuery.endIndex
        let query = String(afterQuery[..<fragmentStart])
        let redacted = redact(formEncoded: query)
        if redacted == query { return url }
        return String(url[...question]) + redacted + afterQuery[fragmentStart...]
    }

    /// Redacts `name=value&...` pairs whose names are sensitive.
    public func redact(formEncoded text: String) -> String {
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            guard policy.isSensitiveField(Self.formDecoded(rawName)) else { return String(pair) }
            changed = true
            return rawName + "=" + policy.replacement
        }
        return changed ? pairs.joined(separator: "&") : text
    }

    /// A form or query name as it reads decoded: `+` is a space and `%XX` a byte. Names without
    /// either (nearly all) skip Foundation's decoding, which showed up when every URL is redacted.
    static func formDecoded(_ raw: Substring) -> String {
        guard raw.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(raw) }
        let spaced = raw.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    // MARK: Bodies

    public func redact(body: CapturedBody) -> CapturedBody {
        guard policy.redactsBodies, !body.data.isEmpty else { return body }
        let type = body.contentType ?? ""
        var result = body
        if type.containsASCIICaseInsensitive("json") || (type.isEmpty && looksLikeJSON(body.data)) {
            let redacted = JSONFieldRedactor(policy: policy).redact(body.data)
            if redacted != body.data {
                result.data = redacted
                result.isRedacted = true
            }
        } else if type.containsASCIICaseInsensitive("x-www-form-urlencoded"), let text = String(data: body.data, encoding: .utf8) {
            let redacted = redact(formEncoded: text)
            if redacted != text {
                result.data = Data(redacted.utf8)
                result.isRedacted = true
            }
        }
        return result
    }

    private func looksLikeJSON(_ data: Data) -> Bool {
        guard let first = data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}

extension HTTPHeaders {
    /// Redacts, then scrubs reflected `secrets` from, each value in place: one pass, and no copy
    /// of the fields unless one changes.
    fileprivate mutating func redact(_ redactor: Redactor, scrubbing secrets: [[UInt8]]) {
        // Most headers have nothing to redact: a look at the names alone, through the buffer, which
        // borrows each field where iterating the array or the edit below copies it.
        guard !secrets.isEmpty || fields.withUnsafeBufferPointer({ fields in
            fields.indices.contains { redactor.policy.isSensitiveHeader(fields[$0].name) }
        }) else { return }
        let replacement = secrets.isEmpty ? [] : Array(redactor.policy.replacement.utf8)
        transformValues { redactor.redactedValue(of: $0, scrubbing: secrets, replacement: replacement) }
    }
}

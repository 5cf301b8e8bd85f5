import Foundation
import NetTapCore

/// Answers live requests from recorded exchanges (decoded from a HAR file by the caller).
///
/// Entries are keyed by method, scheme, host, effective port, path and the query items as a sorted
/// multiset (minus `ignoreQueryItems`); headers named in `matchHeaders` and the body (per
/// `matchBody`) must agree too. Repeated identical requests consume matching entries in recorded
/// order; with `reuseLast` the last one keeps answering once all are used.
///
/// Redaction: the `redact` function is applied to the live request (and, since it is idempotent,
/// to the fixtures) before matching, so fixtures recorded with secrets redacted still match.
///
/// ```swift
/// let engine = ReplayEngine(fixtures: exchanges, options: ReplayOptions(matchBody: .json),
///                           redact: { Redactor(policy: .default).redact($0) })
/// switch engine.lookup(capturedRequest) {
/// case .hit(let exchange, _): deliver(exchange.response)
/// case .miss(let miss): fail(miss.message) // in strict mode
/// }
/// ```
public final class ReplayEngine: Sendable {
    /// The result of a lookup.
    public enum Result: Sendable {
        /// The recorded exchange that answers, and its index in the fixtures.
        case hit(Exchange, index: Int)
        case miss(ReplayMiss)
    }

    private struct Entry: Sendable {
        let exchange: Exchange
        let request: CapturedRequest
        let parsed: Parsed?
    }

    /// The parts of a request that matching compares.
    private struct Parsed: Sendable, Hashable {
        let method: String
        let scheme: String
        let host: String
        let port: Int?
        let path: String
        /// `name=value` (or `name`), sorted.
        let query: [String]
    }

    public let options: ReplayOptions
    private let entries: [Entry]
    private let byKey: [Parsed: [Int]]
    private let redact: @Sendable (CapturedRequest) -> CapturedRequest
    private let consumed: Protected<[Bool]>

    public init(
        fixtures: [Exchange], options: ReplayOptions = ReplayOptions(),
        redact: @escaping @Sendable (CapturedRequest) -> CapturedRequest = { $0 }
    ) {
        self.options = options
        self.redact = redact
        var entries: [Entry] = []
        var byKey: [Parsed: [Int]] = [:]
        for (index, exchange) in fixtures.enumerated() {
            let request = redact(exchange.request)
            let parsed = Self.parse(request, ignoring: options.ignoreQueryItems)
            entries.append(Entry(exchange: exchange, request: request, parsed: parsed))
            if let parsed { byKey[parsed, default: []].append(index) }
        }
        self.entries = entries
        self.byKey = byKey
        self.consumed = Protected(Array(repeating: false, count: fixtures.count))
    }

    /// How many entries have not answered yet.
    public var remainingCount: Int {
        consumed.withLock { $0.filter { !$0 }.count }
    }

    /// Finds the entry for `request` and marks it used. Thread-safe.
    public func lookup(_ request: CapturedRequest) -> Result {
        let live = redact(request)
        let parsed = Self.parse(live, ignoring: options.ignoreQueryItems)
        let candidates = parsed.flatMap { byKey[$0] } ?? []
        let matching = candidates.filter { differences(live: live, key: .alreadyEqual, entry: entries[$0]).isEmpty }
        if !matching.isEmpty {
            let chosen: Int? = consumed.withLock { used in
                if let next = matching.first(where: { !used[$0] }) {
                    used[next] = true
                    return next
                }
                return options.reuseLast ? matching.last : nil
            }
            if let chosen { return .hit(entries[chosen].exchange, index: chosen) }
            return .miss(
                ReplayMiss(
                    request: Self.requestLine(live), closestIndex: matching.last,
                    closestRequest: matching.last.map { Self.requestLine(entries[$0].request) },
                    differences: [], isExhausted: true))
        }
        return .miss(closestMiss(for: live, parsed: parsed))
    }

    private func closestMiss(for live: CapturedRequest, parsed: Parsed?) -> ReplayMiss {
        var best: (index: Int, score: Int, differences: [ReplayDifference])?
        for index in entries.indices {
            let found = differences(live: live, key: .compare(parsed), entry: entries[index])
            let score = found.reduce(0) { $0 + Self.weight(of: $1.field) }
            if let current = best, current.score <= score { continue }
            best = (index, score, found)
        }
        return ReplayMiss(
            request: Self.requestLine(live), closestIndex: best?.index,
            closestRequest: best.map { Self.requestLine(entries[$0.index].request) },
            differences: best?.differences ?? [], isExhausted: false)
    }

    /// Method and path count most, then the host parts, then single items.
    private static func weight(of field: String) -> Int {
        switch field {
        case "method", "path": return 8
        case "scheme", "host", "port", "url": return 4
        default: return 1
        }
    }

    /// Whether the key parts still need comparing.
    private enum KeyCheck {
        /// The entry came from the live request's key bucket: compare only headers and body.
        case alreadyEqual
        /// Compare with the live request's key (nil when its URL does not parse).
        case compare(Parsed?)
    }

    /// Every difference between a live request and an entry, in a fixed field order.
    private func differences(live: CapturedRequest, key: KeyCheck, entry: Entry) -> [ReplayDifference] {
        var found: [ReplayDifference] = []
        if case .compare(let parsed) = key {
            guard let left = parsed, let right = entry.parsed else {
                return [ReplayDifference(field: "url", detail: "live \(live.url), recorded \(entry.request.url)")]
            }
            func compare(_ field: String, _ a: String, _ b: String) {
                if a != b { found.append(ReplayDifference(field: field, detail: "live \"\(a)\", recorded \"\(b)\"")) }
            }
            compare("method", left.method, right.method)
            compare("scheme", left.scheme, right.scheme)
            compare("host", left.host, right.host)
            compare("port", left.port.map(String.init) ?? "none", right.port.map(String.init) ?? "none")
            compare("path", left.path, right.path)
            found += queryDifferences(live: live, recorded: entry.request)
        }
        found += headerDifferences(live: live.headers, recorded: entry.request.headers)
        if let body = BodyComparison.difference(
            live: live.body?.data ?? Data(), recorded: entry.request.body?.data ?? Data(), mode: options.matchBody)
        {
            found.append(ReplayDifference(field: "body", detail: body))
        }
        return found
    }

    private func queryDifferences(live: CapturedRequest, recorded: CapturedRequest) -> [ReplayDifference] {
        let left = Self.queryItems(of: live.url).filter { !options.ignoreQueryItems.contains($0.name) }
        let right = Self.queryItems(of: recorded.url).filter { !options.ignoreQueryItems.contains($0.name) }
        var names: [String] = []
        for item in left + right where !names.contains(item.name) { names.append(item.name) }
        return names.compactMap { name in
            let a = left.filter { $0.name == name }.map { $0.value ?? "" }.sorted()
            let b = right.filter { $0.name == name }.map { $0.value ?? "" }.sorted()
            guard a != b else { return nil }
            return ReplayDifference(
                field: "query item \(name)",
                detail: "live \(ReplayDifference.show(a)), recorded \(ReplayDifference.show(b))")
        }
    }

    private func headerDifferences(live: HTTPHeaders, recorded: HTTPHeaders) -> [ReplayDifference] {
        guard !options.matchHeaders.isEmpty else { return [] }
        var names: [String] = []
        var spelling: [String: String] = [:]
        for field in Array(live) + Array(recorded) where spelling[field.name.lowercased()] == nil {
            spelling[field.name.lowercased()] = field.name
        }
        if options.matchHeaders.contains("*") {
            for field in Array(live) + Array(recorded) where !names.contains(field.name.lowercased()) {
                names.append(field.name.lowercased())
            }
        }
        for name in options.matchHeaders where name != "*" && !names.contains(name) { names.append(name) }
        return names.compactMap { name in
            guard !options.ignoreHeaders.contains(name) else { return nil }
            let a = live.values(for: name)
            let b = recorded.values(for: name)
            guard a != b else { return nil }
            return ReplayDifference(
                field: "header \(spelling[name] ?? name)",
                detail: "live \(ReplayDifference.show(a)), recorded \(ReplayDifference.show(b))")
        }
    }

    private static func parse(_ request: CapturedRequest, ignoring ignored: Set<String>) -> Parsed? {
        guard let parts = RuleRequest(request) else { return nil }
        let query = parts.queryItems
            .filter { !ignored.contains($0.name) }
            .map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }
            .sorted()
        return Parsed(
            method: parts.method, scheme: parts.scheme, host: parts.host, port: parts.effectivePort, path: parts.path,
            query: query)
    }

    private static func queryItems(of url: String) -> [RuleQueryItem] {
        RuleRequest.parseQuery(URLComponents(string: url)?.percentEncodedQuery)
    }

    static func requestLine(_ request: CapturedRequest) -> String {
        "\(request.method.uppercased()) \(request.url)"
    }
}

import Foundation
import NetTapCore
import NetTapRules

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request is answered without the network when a rule ends it. `@unchecked Sendable`: the
/// response and error it holds are not mutated after it is made.
enum RuleAnswer: @unchecked Sendable {
    case response(HTTPURLResponse, Data)
    case failure(Error)

    /// The answer the decision calls for, or nil when the request goes to the network.
    /// `body` is the request's body when the request itself does not carry it (an upload task's).
    /// `recordTargets` receives the replay file when a `recordMissing` replay misses; the replay's
    /// note in `notes` is completed with how the lookup went (the entry that answered, or the miss).
    static func make(
        for decision: RuleDecision, request: URLRequest, body: Data? = nil, rules: RulesInForce,
        recordTargets: inout [URL], notes: inout [ExchangeModification]
    ) -> (answer: RuleAnswer, delay: TimeInterval)? {
        guard let url = request.url else { return nil }
        if let failure = decision.throttleFailure {
            return (.failure(urlError(failure.code, url: url, message: "NetTap throttle rule failed the request")), 0)
        }
        let ruled: RuleResponse
        switch decision.terminal {
        case .none:
            return nil
        case .mock(let response):
            ruled = response
        case .mapLocal(let action, let path):
            ruled = action.response(forPath: path)
        case .block(let action):
            switch action {
            case .fail(let code):
                return (.failure(urlError(code.code, url: url, message: "blocked by a NetTap rule")), 0)
            case .status:
                guard let response = action.response else { return nil }
                ruled = response
            }
        case .replay(let source):
            guard let engine = rules.engine(for: source) else {
                // Cannot happen: rules and their engines are installed together (RulesInForce).
                return (.failure(urlError(-1, url: url, message: "NetTap replay: no fixtures are loaded for \(source.harFile.path)")), 0)
            }
            let lookup = engine.lookup(CapturedRequest(request, body: body))
            noteReplay(lookup, mode: source.options.mode, in: &notes)
            switch lookup {
            case .hit(let exchange, _):
                guard let recorded = exchange.response else {
                    let error = exchange.error.map { urlError($0.code, url: url, message: $0.message, domain: $0.domain) }
                    return (.failure(error ?? urlError(-1, url: url, message: "the recorded exchange had no response")), 0)
                }
                ruled = RuleResponse(statusCode: recorded.statusCode, headers: recorded.headers, body: recorded.body?.data ?? Data())
            case .miss(let miss):
                switch source.options.mode {
                case .strict:
                    return (.failure(NSError(domain: "NetTap.Replay", code: 1, userInfo: [
                        NSLocalizedDescriptionKey: miss.message, NSURLErrorFailingURLErrorKey: url,
                    ])), 0)
                case .passthrough:
                    return nil
                case .recordMissing:
                    recordTargets.append(source.harFile)
                    return nil
                }
            }
        }
        var headers = ruled.headers
        for edit in decision.responseHeaderEdits { edit.apply(to: &headers) }
        if headers["Content-Length"] == nil { headers.set(name: "Content-Length", value: String(ruled.body.count)) }
        guard let response = HTTPURLResponse(url: url, statusCode: ruled.statusCode, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) else {
            return nil
        }
        return (.response(response, ruled.body), ruled.delay)
    }

    /// Completes the replay's note: which recorded entry answered, or what the miss led to.
    private static func noteReplay(_ lookup: ReplayEngine.Result, mode: ReplayOptions.Mode, in notes: inout [ExchangeModification]) {
        guard let index = notes.lastIndex(where: { $0.action == "replay" }) else { return }
        let outcome: String
        switch (lookup, mode) {
        case (.hit(_, let entry), _): outcome = "answered by entry #\(entry)"
        case (.miss, .strict): outcome = "no entry matched: failed"
        case (.miss, .passthrough): outcome = "no entry matched: sent to the network"
        case (.miss, .recordMissing): outcome = "no entry matched: sent to the network and recorded"
        }
        notes[index].detail += "; " + outcome
    }

    /// A URL error as URLSession reports its own: a `URLError` value (apps `catch let e as URLError`).
    static func urlError(_ code: Int, url: URL, message: String, domain: String = NSURLErrorDomain) -> Error {
        let userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: message,
            NSURLErrorFailingURLErrorKey: url,
            NSURLErrorFailingURLStringErrorKey: url.absoluteString,
        ]
        guard domain == NSURLErrorDomain, let urlCode = Optional(URLError.Code(rawValue: code)).flatMap({ $0 }) else {
            return NSError(domain: domain, code: code, userInfo: userInfo)
        }
        return URLError(urlCode, userInfo: userInfo)
    }

    /// Calls `client` as a loader that produced this answer would. Must run where URLSession
    /// accepts client calls (on Linux: its work queue).
    func deliver(to client: URLProtocolClient, from loader: URLProtocol) {
        switch self {
        case .response(let response, let body):
            client.urlProtocol(loader, didReceive: response, cacheStoragePolicy: .notAllowed)
            client.urlProtocol(loader, didLoad: body)
            client.urlProtocolDidFinishLoading(loader)
        case .failure(let error):
            client.urlProtocol(loader, didFailWithError: error)
        }
    }
}

extension CapturedRequest {
    /// The request as rules and replay see it; `body` stands in for an upload task's body.
    init(_ request: URLRequest, body: Data? = nil) {
        self.init(
            method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "",
            headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]),
            body: (body ?? request.httpBody).map { CapturedBody(data: $0, contentType: request.value(forHTTPHeaderField: "Content-Type")) })
    }
}

extension RuleDecision {
    /// The request the network should see: rewritten URL and request header edits applied.
    func rewrite(_ request: URLRequest) -> URLRequest {
        var rewritten = request
        if let url { rewritten.url = url }
        if !requestHeaderEdits.isEmpty {
            var headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
            for edit in requestHeaderEdits { edit.apply(to: &headers) }
            rewritten.allHTTPHeaderFields = headers.dictionary
        }
        return rewritten
    }

    /// Whether the request itself must change (so it cannot go out as the app built it).
    var changesRequest: Bool { url != nil || !requestHeaderEdits.isEmpty || proxy != nil }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessions for tests: no cache, no cookie store, so every request reaches the server as written.
enum TestSessions {
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 30
        return configuration
    }

    /// Follows redirects, as URLSession does by default.
    static func plain() -> URLSession {
        URLSession(configuration: configuration())
    }

    /// Hands 3xx responses back instead of following them.
    static func notFollowingRedirects() -> URLSession {
        URLSession(configuration: configuration(), delegate: RedirectRefuser(), delegateQueue: nil)
    }
}

/// Declines every redirect, so the 3xx response itself is returned.
final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

extension URLSession {
    /// Sends `request` and returns the body and the HTTP response, failing clearly on a non-HTTP answer.
    func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return (data, http)
    }

    func exchange(_ url: URL) async throws -> (Data, HTTPURLResponse) {
        try await exchange(URLRequest(url: url))
    }
}

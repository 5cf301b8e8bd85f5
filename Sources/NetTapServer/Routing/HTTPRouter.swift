import Foundation
import NetTapCore

/// Dispatches requests by method and path pattern: literal segments, `:name` segments that capture
/// one segment each, and a final `*` that captures the rest (zero or more segments).
///
/// When several patterns match, the most specific wins (literal before `:param` before `*`,
/// segment by segment), then the one added first. HEAD requests use GET routes when no HEAD
/// route exists (the writer drops the body). A path that matches no pattern gets 404; a path
/// that matches only under other methods gets 405 with `Allow`.
///
/// ```swift
/// var router = HTTPRouter()
/// router.get("/items/:id") { request, response in
///     try response.respond(.text("item \(request.pathParameters["id"] ?? "")\n"))
/// }
/// router.add(method: nil, "/echo") { request, response in   // any method
///     try response.respond(status: 200, body: request.body)
/// }
/// let server = HTTPServer(router: router)
/// ```
public struct HTTPRouter: Sendable {
    private struct Route: Sendable {
        var method: String?
        var pattern: RoutePattern
        var handler: HTTPHandler
    }

    /// How a method and path resolve against the routes.
    public enum Resolution: Equatable {
        case matched(pattern: String, parameters: [String: String])
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private var routes: [Route] = []

    public init() {}

    /// Adds a route; `method` nil matches any method.
    public mutating func add(method: String?, _ pattern: String, _ handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), handler: handler))
    }

    public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method: "GET", pattern, handler)
    }

    public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method: "POST", pattern, handler)
    }

    public mutating func put(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method: "PUT", pattern, handler)
    }

    public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method: "DELETE", pattern, handler)
    }

    /// Resolves without running anything, for tests and diagnostics.
    public func resolve(method: String, path: String) -> Resolution {
        switch find(method: method, path: path) {
        case .found(let route, let parameters): return .matched(pattern: route.pattern.description, parameters: parameters)
        case .methodNotAllowed(let allowed): return .methodNotAllowed(allowed: allowed)
        case .notFound: return .notFound
        }
    }

    /// Runs the matching route's handler with `pathParameters` filled in, or answers 404 / 405.
    public func handle(_ request: HTTPServerRequest, _ writer: HTTPResponseWriter) throws {
        switch find(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            var routed = request
            routed.pathParameters = parameters
            try route.handler(routed, writer)
        case .methodNotAllowed(let allowed):
            var response = HTTPServerResponse.text("405 Method Not Allowed: \(request.method) \(request.path)\n", status: 405)
            response.headers.add(name: "Allow", value: allowed.joined(separator: ", "))
            try writer.respond(response)
        case .notFound:
            try writer.respond(.text("404 Not Found: \(request.path)\n", status: 404))
        }
    }

    private enum Lookup {
        case found(Route, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    private func find(method: String, path: String) -> Lookup {
        var best: (route: Route, parameters: [String: String], ranks: [Int])?
        var fallback: (route: Route, parameters: [String: String], ranks: [Int])?
        var otherMethods: [String] = []
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            let ranks = route.pattern.segments.map(\.rank)
            if route.method == nil || route.method == method {
                if best == nil || ranks.lexicographicallyPrecedes(best?.ranks ?? []) { best = (route, parameters, ranks) }
            } else if method == "HEAD" && route.method == "GET" {
                if fallback == nil || ranks.lexicographicallyPrecedes(fallback?.ranks ?? []) { fallback = (route, parameters, ranks) }
            } else if let other = route.method, !otherMethods.contains(other) {
                otherMethods.append(other)
            }
        }
        if let chosen = best ?? fallback { return .found(chosen.route, chosen.parameters) }
        if otherMethods.isEmpty { return .notFound }
        if otherMethods.contains("GET") && !otherMethods.contains("HEAD") { otherMethods.append("HEAD") }
        return .methodNotAllowed(otherMethods)
    }
}

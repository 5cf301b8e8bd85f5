import Foundation
import NetTapServer
import NetTapTestSupport
import Testing

/// Route matching (pure) and the router's 404/405 answers on the wire.
@Suite struct HTTPRouterTests {
    static let noop: HTTPHandler = { _, response in try response.respond(status: 204) }

    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.get("/items/:id", noop)
        router.get("/items/special", noop)
        router.post("/items", noop)
        router.put("/items/:id", noop)
        router.get("/files/*", noop)
        router.add(method: nil, "/any", noop)
        router.get("/", noop)
        router.add(method: "HEAD", "/head-only", noop)
        return router
    }

    @Test func literalBeatsParameterWhicheverWasAddedFirst() {
        let router = Self.router()
        #expect(router.resolve(method: "GET", path: "/items/special") == .matched(pattern: "/items/special", parameters: [:]))
        #expect(router.resolve(method: "GET", path: "/items/42") == .matched(pattern: "/items/:id", parameters: ["id": "42"]))
    }

    @Test func parametersArePercentDecoded() {
        #expect(Self.router().resolve(method: "PUT", path: "/items/a%2Fb%20c")
            == .matched(pattern: "/items/:id", parameters: ["id": "a/b c"]))
    }

    @Test func wildcardTakesTheRestIncludingNothing() {
        let router = Self.router()
        #expect(router.resolve(method: "GET", path: "/files/a/b/c.txt") == .matched(pattern: "/files/*", parameters: ["*": "a/b/c.txt"]))
        #expect(router.resolve(method: "GET", path: "/files/") == .matched(pattern: "/files/*", parameters: ["*": ""]))
        #expect(router.resolve(method: "GET", path: "/files") == .matched(pattern: "/files/*", parameters: ["*": ""]))
    }

    @Test func segmentCountsMustAgree() {
        let router = Self.router()
        #expect(router.resolve(method: "GET", path: "/items/1/extra") == .notFound)
        #expect(router.resolve(method: "GET", path: "/items/") == .notFound, "an empty segment is not a parameter")
        #expect(router.resolve(method: "GET", path: "/") == .matched(pattern: "/", parameters: [:]))
        #expect(router.resolve(method: "GET", path: "/nothing") == .notFound)
    }

    @Test func otherMethodsGive405WithAllowedList() {
        let router = Self.router()
        #expect(router.resolve(method: "DELETE", path: "/items/7") == .methodNotAllowed(allowed: ["GET", "PUT", "HEAD"]))
        #expect(router.resolve(method: "GET", path: "/items") == .methodNotAllowed(allowed: ["POST"]))
        #expect(router.resolve(method: "GET", path: "/head-only") == .methodNotAllowed(allowed: ["HEAD"]))
    }

    @Test func headFallsBackToGetAndNilMethodMatchesAll() {
        let router = Self.router()
        #expect(router.resolve(method: "HEAD", path: "/items/1") == .matched(pattern: "/items/:id", parameters: ["id": "1"]))
        for method in ["GET", "POST", "OPTIONS", "BREW"] {
            #expect(router.resolve(method: method, path: "/any") == .matched(pattern: "/any", parameters: [:]))
        }
    }

    @Test func serverAnswers404And405AndRunsRoutes() throws {
        var router = HTTPRouter()
        router.get("/hello/:name") { request, response in
            try response.respond(.text("hello \(request.pathParameters["name"] ?? "?")\n"))
        }
        let server = HTTPServer(router: router)
        let port = try server.start()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)

        try connection.send("GET /hello/J%C3%BCrgen HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "hello Jürgen\n")

        try connection.send("POST /hello/x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let notAllowed = try connection.readResponse()
        #expect(notAllowed.status == 405)
        #expect(notAllowed.headers["Allow"] == "GET, HEAD")

        try connection.send("GET /missing HTTP/1.1\r\nHost: t\r\n\r\n")
        let missing = try connection.readResponse()
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self) == "404 Not Found: /missing\n")
    }
}

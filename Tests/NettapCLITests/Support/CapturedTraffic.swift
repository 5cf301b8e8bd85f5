import Foundation
import NetTapTestSupport
import Testing

/// Real loopback traffic captured by `nettap fetch --store`, through both capture paths: a GET of
/// JSON, a binary body, a redirect, a 404, a header-heavy response, a POST with a JSON body, a POST
/// of binary bytes, and (session path only) a connection dropped without a response.
///
/// `requests` lists what was asked, in the order the store must hold it.
final class CapturedTraffic {
    /// One request the fixture made and what it must have captured.
    struct Request {
        var via: String
        var method: String
        /// Path and query as requested.
        var target: String
        /// The final status; nil when no response came.
        var status: Int?
        /// The whole response body size, when the test knows it exactly.
        var responseSize: Int?
    }

    /// The body of the binary POST: every byte value once.
    static let binaryBody = Data(0...255)
    static let jsonBody = #"{"name":"café","count":2,"tags":["a","b"]}"#

    let directory: TemporaryDirectory
    let server: ScenarioServer
    let store: String
    private(set) var requests: [Request] = []

    init() throws {
        directory = try TemporaryDirectory(prefix: "nettap-cli")
        server = try ScenarioServer()
        store = directory.file("captured.sqlite").path
        let binaryFile = directory.file("body.bin")
        try Self.binaryBody.write(to: binaryFile)

        for via in ["protocol", "session"] {
            let gets: [(String, Int, Int?)] = [
                ("/json", 200, ScenarioServer.sampleJSON.count),
                ("/bytes/300?seed=7", 200, 300),
                ("/redirect/302?to=/text/64", 200, 64),
                ("/status/404", 404, "404 Not Found\n".utf8.count),
                ("/headers", 200, #"{"headers":"custom"}"#.utf8.count),
            ]
            try fetch(via: via, ["-o", directory.file("gets-\(via).out").path] + gets.map { server.url($0.0).absoluteString })
            requests += gets.map { Request(via: via, method: "GET", target: $0.0, status: $0.1, responseSize: $0.2) }

            try fetch(via: via, [
                "-H", "Content-Type: application/json", "-H", "X-Trace: cli-test", "-d", Self.jsonBody,
                "-o", directory.file("post-\(via).out").path, server.url("/echo").absoluteString,
            ])
            requests.append(Request(via: via, method: "POST", target: "/echo", status: 200, responseSize: nil))

            try fetch(via: via, [
                "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + binaryFile.path,
                "-o", directory.file("binary-\(via).out").path, server.url("/echo/raw").absoluteString,
            ])
            requests.append(Request(via: via, method: "POST", target: "/echo/raw", status: 200, responseSize: 256))
        }
        // No response at all: fetch reports the transport error (exit 1) and still keeps the exchange.
        let dropped = try Nettap.run(["fetch", "--store", store, "--via", "session", server.url("/drop").absoluteString])
        try #require(dropped.status == .exited(1), "fetch of /drop: \(dropped)")
        requests.append(Request(via: "session", method: "GET", target: "/drop", status: nil, responseSize: nil))
    }

    deinit {
        _ = server.stop()
    }

    private func fetch(via: String, _ arguments: [String]) throws {
        try Nettap.succeed(["fetch", "--store", store, "--via", via] + arguments)
    }

    /// The URL of a request of the fixture.
    func url(_ request: Request) -> String {
        server.url(request.target).absoluteString
    }
}

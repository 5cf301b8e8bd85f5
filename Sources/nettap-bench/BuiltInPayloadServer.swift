import Foundation
import NetTapCore
import NetTapServer

/// The benchmark's fallback server when nginx is not installed: NetTap's own HTTP/1.1 server
/// answering every GET with the payload.
final class BuiltInPayloadServer: Sendable {
    private let server: HTTPServer
    let url: URL

    init(payload: Data) throws {
        var router = HTTPRouter()
        router.get("/payload") { _, writer in
            try writer.respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: payload)
        }
        server = HTTPServer(router: router)
        try server.start()
        guard let url = URL(string: server.baseURL.absoluteString + "/payload") else {
            throw BenchError("bad loopback URL")
        }
        self.url = url
    }

    func stop() { server.stop() }
}

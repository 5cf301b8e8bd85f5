import Foundation
import NetTapCore
import NetTapServer

/// The loopback shop API that `nettap demo` talks to: realistic JSON endpoints plus the awkward
/// cases (a redirect, a 404, a 500, a slow endpoint) that a capture tool must show well.
final class SampleAPI: Sendable {
    private let server: HTTPServer

    init() throws {
        var router = HTTPRouter()
        router.get("/api/products") { _, writer in
            try writer.respond(.json(Data(#"{"products":[{"id":1,"name":"Espresso cup","price":9.5},{"id":2,"name":"Milk jug","price":14.0},{"id":3,"name":"Tamper","price":24.9}]}"#.utf8)))
        }
        router.get("/api/products/:id") { request, writer in
            guard let id = request.pathParameters["id"], ["1", "2", "3"].contains(id) else {
                try writer.respond(.json(Data(#"{"error":"no such product"}"#.utf8), status: 404))
                return
            }
            try writer.respond(.json(Data(#"{"id":\#(id),"stock":12}"#.utf8)))
        }
        router.post("/api/login") { _, writer in
            try writer.respond(status: 200, headers: ["Content-Type": "application/json", "Set-Cookie": "session=s3cr3t; HttpOnly"],
                               body: Data(#"{"access_token":"tok_5f2b9c","expires_in":3600}"#.utf8))
        }
        router.post("/api/orders") { request, writer in
            try writer.respond(.json(Data(#"{"order":"A-1042","received_bytes":\#(request.body.count)}"#.utf8), status: 201))
        }
        router.get("/api/legacy/cart") { _, writer in
            try writer.respond(status: 301, headers: ["Location": "/api/cart", "Content-Length": "0"])
        }
        router.get("/api/cart") { _, writer in
            try writer.respond(.json(Data(#"{"items":[{"id":1,"quantity":2}]}"#.utf8)))
        }
        router.get("/api/reports") { _, writer in
            try writer.respond(.json(Data(#"{"error":"report service unavailable"}"#.utf8), status: 500))
        }
        router.get("/api/slow") { _, writer in
            _ = writer.pause(milliseconds: 3_000)
            try writer.respond(.json(Data(#"{"late":true}"#.utf8)))
        }
        router.get("/api/stock") { _, writer in
            try writer.respond(.json(Data(#"{"updated":"2026-12-02T09:00:00Z","levels":{"1":12,"2":0,"3":5}}"#.utf8)))
        }
        router.get("/images/:name") { _, writer in
            try writer.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: Data(repeating: 0xAB, count: 60_000))
        }
        server = HTTPServer(router: router)
        try server.start()
    }

    var baseURL: URL { server.baseURL }
    var port: Int { server.port }

    func stop() { server.stop() }
}

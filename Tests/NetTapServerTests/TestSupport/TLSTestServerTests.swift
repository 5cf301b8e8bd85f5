import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetTapTestSupport
import Testing

/// HTTPS through plain URLSession against the shared TLS test server. Needs root (CI and the
/// development machines run tests as root); without it the server throws and this test fails.
@Suite(.serialized) struct TLSTestServerTests {
    @Test func urlSessionTrustsTheTestServerAndGetsExactBytes() async throws {
        let tls = try TLSTestServer()
        let installed = tls.installedCertificateFile
        #expect(FileManager.default.fileExists(atPath: installed.path))
        #expect(installed.lastPathComponent.hasPrefix("nettap-test-"))
        #expect(tls.baseURL.absoluteString == "https://127.0.0.1:\(tls.port)")

        let session = TestSessions.plain()
        let (bytes, bytesResponse) = try await session.exchange(tls.url("/bytes/50000?seed=3"))
        #expect(bytesResponse.statusCode == 200)
        #expect(bytes == ScenarioBytes.bytes(count: 50_000, seed: 3))

        var post = URLRequest(url: tls.url("/echo"))
        post.httpMethod = "POST"
        post.httpBody = ScenarioBytes.bytes(count: 20_000, seed: 8)
        let (echoed, _) = try await session.exchange(post)
        #expect(echoed == post.httpBody)

        let (_, notFound) = try await session.exchange(tls.url("/status/404"))
        #expect(notFound.statusCode == 404)

        let (redirected, final) = try await session.exchange(tls.url("/redirect?to=/bytes/10"))
        #expect(final.url?.path == "/bytes/10")
        #expect(redirected == ScenarioBytes.bytes(count: 10, seed: 0))

        // A second user shares the running instance.
        let second = try TLSTestServer()
        #expect(second.port == tls.port)
        second.release()
        #expect(FileManager.default.fileExists(atPath: installed.path), "still in use by the first user")

        tls.release()
        #expect(!FileManager.default.fileExists(atPath: installed.path), "the last release removes the CA")
        await #expect(throws: URLError.self) { _ = try await TestSessions.plain().exchange(tls.url("/bytes/1")) }
    }
}

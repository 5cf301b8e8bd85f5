import Foundation
import NetTapCapture
import NetTapCore
import NetTapExport
import NetTapServer
import NetTapTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Replay's options end to end: a session is recorded against a real loopback server, the server is
/// stopped, and the recording answers through each capture path under each option.
extension RulesSuites {
@Suite(.serialized) struct ReplayOptionsTests {
    typealias Capture = RulesSuites.RulesCaptureTests

    static let variants: [CaptureVariant] = [.urlProtocol, .session]

    /// Records `requests` through `variant` into `fixtures.har` and returns what the app saw.
    static func record(
        _ requests: [URLRequest], variant: CaptureVariant, run: String, directory: TemporaryDirectory
    ) async throws -> [Data] {
        try Capture.install("""
            {"version": 1, "rules": [{"name": "record", "match": {"query": {"nettap-run": "RUN"}}, "actions": [{"record": {"har": "fixtures.har"}}]}]}
            """, run: run, directory: directory)
        var bodies: [Data] = []
        for request in requests {
            let fetched = try await Capture.fetch(request, variant: variant, api: .async)
            #expect(fetched.status == 200, "recording \(request.url?.absoluteString ?? ""): \(fetched.error.map { "\($0)" } ?? "")")
            bodies.append(fetched.body)
        }
        await NetTap.shared.drain()
        NetTap.shared.rules.clear()
        return bodies
    }

    static func replay(_ options: String, run: String, directory: TemporaryDirectory) throws {
        try Capture.install("""
            {"version": 1, "rules": [{"name": "replay", "match": {"query": {"nettap-run": "RUN"}},
              "actions": [{"replay": {"har": "fixtures.har"\(options.isEmpty ? "" : ", " + options)}}]}]}
            """, run: run, directory: directory)
    }

    static func request(_ base: String, _ pathAndQuery: String, run: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) -> URLRequest {
        let separator = pathAndQuery.contains("?") ? "&" : "?"
        var request = URLRequest(url: URL(string: base + pathAndQuery + separator + "nettap-run=" + run)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// The replay note of the `count`-th exchange captured for `run` (the app's requests, in order).
    static func replayNote(_ run: String, exchange count: Int) async -> String? {
        let exchanges = await CaptureCollector.shared.exchanges(run: run, count: count)
        guard exchanges.count >= count else { return nil }
        return exchanges[count - 1].modifications.last { $0.action == "replay" }?.detail
    }

    @Test(arguments: variants)
    func passthroughAndRecordMissingGoToTheNetworkOnAMiss(_ variant: CaptureVariant) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        _ = CaptureCollector.shared
        let (server, calls) = try RulesSuites.RulesReplayTests.countingServer()
        let base = server.baseURL.absoluteString
        let recorded = try await Self.record([Self.request(base, "/a", run: run)], variant: variant, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }

        try Self.replay(#""mode": "passthrough""#, run: run, directory: directory)
        let hit = try await Capture.fetch(Self.request(base, "/a", run: run), variant: variant, api: .completion)
        #expect(hit.body == recorded[0])
        // Exchange 1 is the recording; 2 the hit, 3 the passthrough miss, 4 the recorded miss.
        let hitNote = await Self.replayNote(run, exchange: 2)
        #expect(hitNote?.hasSuffix("answered by entry #0") == true, "\(hitNote ?? "no note")")
        let callsBefore = calls.current
        let missed = try await Capture.fetch(Self.request(base, "/b", run: run), variant: variant, api: .delegate)
        #expect(missed.status == 200)
        #expect(calls.current == callsBefore + 1, "a passthrough miss goes to the server")
        let missNote = await Self.replayNote(run, exchange: 3)
        #expect(missNote?.hasSuffix("no entry matched: sent to the network") == true, "\(missNote ?? "no note")")

        NetTap.shared.rules.clear()
        try Self.replay(#""mode": "recordMissing""#, run: run, directory: directory)
        let live = try await Capture.fetch(Self.request(base, "/c", run: run), variant: variant, api: .async)
        #expect(live.status == 200)
        await NetTap.shared.drain()
        let recordedNote = await Self.replayNote(run, exchange: 4)
        #expect(recordedNote?.hasSuffix("no entry matched: sent to the network and recorded") == true, "\(recordedNote ?? "no note")")
        NetTap.shared.rules.clear()
        server.stop()

        // The recording now answers /c offline, byte for byte.
        try Self.replay(#""mode": "strict""#, run: run, directory: directory)
        let offline = try await Capture.fetch(Self.request(base, "/c", run: run), variant: variant, api: .async)
        #expect(offline.status == 200, "\(offline.error.map { "\($0)" } ?? "")")
        #expect(offline.body == live.body)
        #expect(try HARReader().decode(contentsOf: directory.file("fixtures.har")).count == 2)
    }

    @Test(arguments: variants)
    func reuseLastIgnoredQueryItemsAndMatchedHeaders(_ variant: CaptureVariant) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        let (server, _) = try RulesSuites.RulesReplayTests.countingServer()
        let base = server.baseURL.absoluteString
        let recorded = try await Self.record(
            [Self.request(base, "/cart?ts=1", run: run, headers: ["X-Env": "qa"])], variant: variant, run: run, directory: directory)
        server.stop()
        try Self.replay(#""ignoreQueryItems": ["ts"], "matchHeaders": ["X-Env"], "reuseLast": true"#, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }

        for attempt in 0..<3 {
            let fetched = try await Capture.fetch(
                Self.request(base, "/cart?ts=\(900 + attempt)", run: run, headers: ["X-Env": "qa"]), variant: variant, api: .async)
            #expect(fetched.status == 200, "attempt \(attempt): \(fetched.error.map { "\($0)" } ?? "")")
            #expect(fetched.body == recorded[0], "reuseLast answers every repeat with the last entry")
        }
        let miss = try await Capture.fetch(Self.request(base, "/cart?ts=5", run: run, headers: ["X-Env": "prod"]), variant: variant, api: .async)
        #expect(miss.error?.domain == "NetTap.Replay")
        let message = miss.error?.localizedDescription ?? ""
        #expect(message.contains("closest: entry #0 GET"), "\(message)")
        #expect(message.contains(#"header X-Env: live "prod", recorded "qa""#), "\(message)")
    }

    @Test(arguments: variants)
    func bodiesMatchByMeaningAndUploadsMatchByTheirBody(_ variant: CaptureVariant) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        let (server, _) = try RulesSuites.RulesReplayTests.countingServer()
        let base = server.baseURL.absoluteString
        let json = ["Content-Type": "application/json"]
        let recorded = try await Self.record(
            [Self.request(base, "/search", run: run, method: "POST", body: Data(#"{"q":"cats","limit":10}"#.utf8), headers: json)],
            variant: variant, run: run, directory: directory)
        server.stop()
        try Self.replay(#""matchBody": "json""#, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }

        let reordered = Self.request(base, "/search", run: run, method: "POST", body: Data(#"{ "limit": 10.0, "q": "cats" }"#.utf8), headers: json)
        let hit = try await Capture.fetch(reordered, variant: variant, api: .completion)
        #expect(hit.status == 200, "\(hit.error.map { "\($0)" } ?? "")")
        #expect(hit.body == recorded[0])
        let other = Self.request(base, "/search", run: run, method: "POST", body: Data(#"{"q":"cats","limit":20}"#.utf8), headers: json)
        let miss = try await Capture.fetch(other, variant: variant, api: .async)
        #expect(miss.error?.localizedDescription.contains("body: $.limit: live 20, recorded 10") == true, "\(miss.error?.localizedDescription ?? "no error")")

        // An upload task's body (kept apart from its request) takes part in matching too.
        NetTap.shared.rules.clear()
        try Self.replay(#""matchBody": "json", "reuseLast": true"#, run: run, directory: directory)
        let client = variant.makeClient(delegate: nil)
        defer { client.finish() }
        var upload = reordered
        upload.httpBody = nil
        let (data, response) = try await client.upload(for: upload, from: Data(#"{"limit":10,"q":"cats"}"#.utf8))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == recorded[0])
    }

    @Test(arguments: variants)
    func aRecordingWithSecretsRedactedMatchesTheLiveSecret(_ variant: CaptureVariant) async throws {
        let directory = try TemporaryDirectory()
        let run = UUID().uuidString
        let (server, _) = try RulesSuites.RulesReplayTests.countingServer()
        let base = server.baseURL.absoluteString
        let secret = "s3cr3t-\(run.prefix(8))"
        let recorded = try await Self.record(
            [Self.request(base, "/account?access_token=\(secret)", run: run, headers: ["Authorization": "Bearer \(secret)"])],
            variant: variant, run: run, directory: directory)
        server.stop()
        let har = try String(contentsOf: directory.file("fixtures.har"), encoding: .utf8)
        #expect(!har.contains(secret), "the recording holds the secret")
        #expect(har.contains("access_token=REDACTED"))

        try Self.replay(#""matchHeaders": ["Authorization"]"#, run: run, directory: directory)
        defer { NetTap.shared.rules.clear() }
        let fetched = try await Capture.fetch(
            Self.request(base, "/account?access_token=\(secret)", run: run, headers: ["Authorization": "Bearer \(secret)"]), variant: variant, api: .delegate)
        #expect(fetched.status == 200, "\(fetched.error.map { "\($0)" } ?? "")")
        #expect(fetched.body == recorded[0])
    }
}
}

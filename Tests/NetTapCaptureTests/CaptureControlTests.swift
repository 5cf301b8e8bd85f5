import Foundation
@testable import NetTapCapture
import NetTapCore
import NetTapTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The switch, sampling, host lists, labels, redaction, the body cap, started events and sink
/// isolation, each on its own NetTap instance through NetTapSession so tests stay independent.
@Suite struct CaptureControlTests {
    /// A sink that records every event in order.
    final class EventLog: CaptureSink, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [CaptureEvent] = []
        let wantsStartEvents: Bool
        init(wantsStartEvents: Bool = false) { self.wantsStartEvents = wantsStartEvents }
        func receive(_ event: CaptureEvent) { lock.withLock { events.append(event) } }
        var all: [CaptureEvent] { lock.withLock { events } }
        var finished: [Exchange] {
            all.compactMap { if case .finished(let exchange) = $0 { return exchange } else { return nil } }
        }
    }

    static func tap(_ change: (inout NetTap.Configuration) -> Void = { _ in }) -> (NetTap, EventLog) {
        var configuration = NetTap.Configuration()
        change(&configuration)
        let tap = NetTap(configuration: configuration)
        let log = EventLog(wantsStartEvents: true)
        tap.addSink(log)
        return (tap, log)
    }

    @Test func theSwitchTurnsCaptureOffAndOn() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        tap.isEnabled = false
        let (off, _) = try await session.data(from: server.url("/bytes/10?seed=1"))
        tap.isEnabled = true
        let (on, _) = try await session.data(from: server.url("/bytes/10?seed=2"))
        await tap.drain()
        #expect(off == ScenarioBytes.bytes(count: 10, seed: 1), "requests work with capture off")
        #expect(on == ScenarioBytes.bytes(count: 10, seed: 2))
        #expect(log.finished.map(\.request.url) == [server.url("/bytes/10?seed=2").absoluteString])
    }

    @Test func samplingCapturesTheRequestedShare() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (none, noneLog) = Self.tap { $0.samplingRate = 0 }
        let (half, halfLog) = Self.tap { $0.samplingRate = 0.5 }
        for tap in [none, half] {
            let session = NetTapSession(configuration: .ephemeral, tap: tap)
            for index in 0..<400 {
                _ = try await session.data(from: server.url("/bytes/8?seed=\(index)"))
            }
            session.finishTasksAndInvalidate()
            await tap.drain()
        }
        #expect(noneLog.finished.isEmpty)
        // Binomial(400, 0.5): mean 200, standard deviation 10; four sigma either side.
        #expect((160...240).contains(halfLog.finished.count), "\(halfLog.finished.count) of 400 captured")
    }

    @Test func allowAndDenyListsChooseHosts() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let byIP = server.url("/bytes/5?seed=1")
        let byName = URL(string: "http://localhost:\(server.port)/bytes/5?seed=2")!
        let (allowing, allowed) = Self.tap { $0.allowedHosts = ["127.0.0.1"] }
        let (denying, denied) = Self.tap { $0.deniedHosts = ["*.localhost"] }
        for tap in [allowing, denying] {
            let session = NetTapSession(configuration: .ephemeral, tap: tap)
            _ = try await session.data(from: byIP)
            _ = try await session.data(from: byName)
            session.finishTasksAndInvalidate()
            await tap.drain()
        }
        #expect(allowed.finished.map(\.request.url) == [byIP.absoluteString])
        #expect(denied.finished.map(\.request.url) == [byIP.absoluteString], "*.localhost covers localhost itself")
    }

    /// What a caller saw: the body on success, the error code on failure.
    struct Outcome: Equatable {
        var body: Data?
        var errorCode: Int?
    }

    static func outcome(_ call: () async throws -> (Data, URLResponse)) async -> Outcome {
        do {
            return Outcome(body: try await call().0)
        } catch {
            return Outcome(errorCode: (error as NSError).code)
        }
    }

    @Test func schemesAreHTTPInAnyCase() async throws {
        // corelibs refuses an upper-case scheme with NSURLErrorUnsupportedURL (docs/linux-foundation-notes.md);
        // NetTap must give the app that same answer and still record the attempt.
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.finishTasksAndInvalidate() }
        let shouted = try #require(URL(string: "HTTP://127.0.0.1:\(server.port)/bytes/3?seed=4"))
        let plainOutcome = await Self.outcome { try await plain.data(from: shouted) }
        let tappedOutcome = await Self.outcome { try await session.data(from: shouted) }
        #expect(tappedOutcome == plainOutcome, "NetTap answers exactly as plain URLSession")
        await tap.drain()
        #expect(log.finished.count == 1, "an upper-case scheme is still HTTP, so the attempt is captured")
        #expect(log.finished.first?.error?.code == plainOutcome.errorCode)
        #expect(NetTap.isHTTP(scheme: "HtTpS") && !NetTap.isHTTP(scheme: "ftp"))
        #expect(NetTap.Configuration().captures(host: nil), "without host lists every host is captured")
    }

    @Test func labelsAreStampedWhenTheRequestStarts() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        tap.setLabel("Checkout", forKey: "screen")
        _ = try await session.data(from: server.url("/bytes/1?seed=1"))
        try await NetTap.withLabels(["scenario": "gift card", "screen": "Payment"]) {
            _ = try await session.data(from: server.url("/bytes/1?seed=2"))
        }
        tap.setLabel(nil, forKey: "screen")
        _ = try await session.data(from: server.url("/bytes/1?seed=3"))
        await tap.drain()
        #expect(log.finished.map(\.labels) == [["screen": "Checkout"], ["screen": "Payment", "scenario": "gift card"], [:]])
    }

    /// Labels and the configuration are one snapshot inside NetTap: changing either keeps the other.
    @Test func labelsAndConfigurationChangeIndependently() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        tap.setLabel("Search", forKey: "screen")
        tap.update { $0.bodyCaptureLimit = 4 }
        tap.setLabel("cold start", forKey: "scenario")
        _ = try await session.data(from: server.url("/bytes/16?seed=1"))
        tap.configuration.bodyCaptureLimit = 8
        _ = try await session.data(from: server.url("/bytes/16?seed=2"))
        await tap.drain()
        #expect(tap.labels == ["screen": "Search", "scenario": "cold start"])
        #expect(log.finished.map(\.labels) == Array(repeating: ["screen": "Search", "scenario": "cold start"], count: 2))
        #expect(log.finished.map { $0.response?.body?.data.count } == [4, 8])
        #expect(log.finished.allSatisfy { $0.response?.body?.isTruncated == true })
    }

    @Test func secretsAreRedactedBeforeAnySinkButSentAsIs() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: server.url("/echo?access_token=tok_123&page=2"))
        request.httpMethod = "POST"
        request.setValue("Bearer abc.def", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"user":"ada","password":"hunter2"}"#.utf8)
        _ = try await session.data(for: request)
        _ = try await session.data(from: server.url("/json"))
        await tap.drain()
        let sent = try #require(server.receivedRequests(path: "/echo").first)
        #expect(sent.headers["Authorization"] == "Bearer abc.def", "the server gets the real credentials")
        #expect(sent.target.contains("access_token=tok_123"))
        let text = String(decoding: try ExchangeJSON.encoder().encode(log.finished), as: UTF8.self)
        for secret in ["abc.def", "tok_123", "hunter2", "tok_live_5f2b9c", "at_9d8e7f"] {
            #expect(!text.contains(secret), "\(secret) reached a sink")
        }
        #expect(text.contains("Bearer REDACTED"))
        #expect(text.contains("Ada Lovelace"), "ordinary fields are kept")
    }

    @Test func bodiesOverTheCapAreTruncatedAndMarked() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap { $0.bodyCaptureLimit = 1_000 }
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(from: server.url("/bytes/5000?seed=7"))
        await tap.drain()
        #expect(data.count == 5_000, "the app gets everything")
        let body = try #require(log.finished.first?.response?.body)
        #expect(body.isTruncated)
        #expect(body.size == 5_000)
        #expect(body.data == data.prefix(1_000))
    }

    @Test func startedEventsComeBeforeFinishedOnes() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, log) = Self.tap()
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        _ = try await session.data(from: server.url("/bytes/3?seed=3"))
        await tap.drain()
        let events = log.all
        #expect(events.count == 2)
        guard events.count == 2, case .started(let start) = events[0], case .finished(let exchange) = events[1] else {
            Issue.record("expected started then finished, got \(events)")
            return
        }
        #expect(start.id == exchange.id)
    }

    /// Sinks that want started events and sinks that do not can share a NetTap: each gets its own
    /// kind of stream, and a NetTap whose sinks want no starts still delivers every finished exchange.
    @Test func sinksGetStartedEventsOnlyWhenTheyWantThem() async throws {
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, withStarts) = Self.tap()
        let finishedOnly = EventLog(wantsStartEvents: false)
        tap.addSink(finishedOnly)
        let quiet = NetTap()
        let quietLog = EventLog(wantsStartEvents: false)
        quiet.addSink(quietLog)
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        let quietSession = NetTapSession(configuration: .ephemeral, tap: quiet)
        defer {
            session.finishTasksAndInvalidate()
            quietSession.finishTasksAndInvalidate()
        }
        for seed in 1...3 {
            _ = try await session.data(from: server.url("/bytes/4?seed=\(seed)"))
            _ = try await quietSession.data(from: server.url("/bytes/5?seed=\(seed)"))
        }
        await tap.drain()
        await quiet.drain()
        let kinds = withStarts.all.map { event -> String in
            if case .started = event { return "started" } else { return "finished" }
        }
        #expect(kinds == ["started", "finished", "started", "finished", "started", "finished"])
        #expect(finishedOnly.all.count == 3 && finishedOnly.finished.count == 3)
        #expect(finishedOnly.finished.map(\.id) == withStarts.finished.map(\.id))
        #expect(quietLog.finished.map(\.request.url) == (1...3).map { server.url("/bytes/5?seed=\($0)").absoluteString })
        #expect(quietLog.all.count == 3)
    }

    /// A sink that never returns must cost only its own events: requests finish, a healthy sink
    /// gets everything, and the stalled sink's drops are counted.
    @Test func aStalledSinkNeverBlocksRequests() async throws {
        final class StalledSink: CaptureSink, @unchecked Sendable {
            let release = DispatchSemaphore(value: 0)
            var pendingLimit: Int { 5 }
            func receive(_ event: CaptureEvent) { release.wait() }
        }
        let server = try ScenarioServer()
        defer { server.stop() }
        let (tap, healthy) = Self.tap()
        let stalled = StalledSink()
        tap.addSink(stalled)
        let session = NetTapSession(configuration: .ephemeral, tap: tap)
        defer { session.finishTasksAndInvalidate() }
        try await withTimeout(seconds: 60, "requests while a sink is stalled") {
            for index in 0..<100 {
                let (data, _) = try await session.data(from: server.url("/bytes/16?seed=\(index)"))
                #expect(data.count == 16)
            }
        }
        // The healthy sink's own queue is not held up by the stalled one.
        let deadline = Date().addingTimeInterval(20)
        while healthy.finished.count < 100, Date() < deadline { await Task.yield() }
        #expect(healthy.finished.count == 100)
        // The hub hands each batch to the healthy sink before the stalled one, so the last batch's
        // drops may land just after the healthy sink has it all.
        let expectedDrops = 100 - 5 - 1
        while tap.droppedEventCount < expectedDrops, Date() < deadline { await Task.yield() }
        #expect(tap.droppedEventCount >= expectedDrops, "the stalled sink's overflow is counted, not waited for")
        tap.removeSink(stalled)
        for _ in 0..<200 { stalled.release.signal() }
    }
}

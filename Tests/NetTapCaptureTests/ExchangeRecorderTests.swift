import Foundation
@testable import NetTapCapture
import NetTapCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The recorder's contract with the hub: `finish` hands the recorder over once, and the hub reads
/// what was recorded up to that moment, however late it reads and whatever arrives after.
@Suite struct ExchangeRecorderTests {
    static func response(_ url: URL, status: Int = 200) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"])
    }

    @Test func callbacksAfterFinishChangeNothing() async throws {
        let requestURL = try #require(URL(string: "http://127.0.0.1:9/recorded"))
        let tap = NetTap()
        let log = CaptureControlTests.EventLog()
        tap.addSink(log)
        let recorder = ExchangeRecorder(tap: tap, request: URLRequest(url: requestURL), path: .session, kind: .data, requestBody: .none)
        let response = try #require(Self.response(requestURL))
        recorder.didReceive(response: response)
        recorder.didLoad(wholeBody: Data("first".utf8))
        recorder.finish(response: response)

        // A cancellation racing the completion, and callbacks that arrive after the end.
        recorder.didLoad(wholeBody: Data("second".utf8))
        recorder.didReceive(chunk: Data("chunk".utf8))
        recorder.didRedirect(RedirectHop(url: requestURL.absoluteString, statusCode: 302, location: "http://127.0.0.1:9/late"))
        recorder.didReceive(response: try #require(Self.response(requestURL, status: 500)))
        recorder.addModification(ExchangeModification(rule: "late", action: "mock", detail: "after the end"))
        recorder.finish(error: URLError(.cancelled))
        await tap.drain()

        let exchanges = log.finished
        #expect(exchanges.count == 1, "one exchange for one recorder, however often finish is called")
        let exchange = try #require(exchanges.first)
        #expect(exchange.response?.statusCode == 200)
        #expect(exchange.response?.body?.data == Data("first".utf8))
        #expect(exchange.redirects.isEmpty)
        #expect(exchange.modifications.isEmpty)
        #expect(exchange.error == nil, "the first finish decides how the exchange ended")
    }

    @Test func theHubReadsNothingBeforeFinish() throws {
        let requestURL = try #require(URL(string: "http://127.0.0.1:9/unfinished"))
        let recorder = ExchangeRecorder(tap: NetTap(), request: URLRequest(url: requestURL), path: .session, kind: .data, requestBody: .none)
        recorder.didLoad(wholeBody: Data("body".utf8))
        #expect(recorder.capture() == nil, "an exchange in flight has nothing to build yet")
        recorder.finish(response: Self.response(requestURL))
        let capture = try #require(recorder.capture())
        #expect(capture.makeExchange().response?.body?.data == Data("body".utf8))
        #expect(capture.endedAt >= capture.startedAt)
    }
}

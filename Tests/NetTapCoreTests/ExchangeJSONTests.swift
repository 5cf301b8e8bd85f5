import Foundation
import Testing
@testable import NetTapCore

@Suite struct ExchangeJSONTests {
    static func sample() -> Exchange {
        Exchange(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
            sessionID: "s1",
            startedAt: Date(timeIntervalSince1970: 1_780_000_000.25),
            duration: 0.5,
            request: CapturedRequest(
                method: "POST", url: "http://127.0.0.1:8080/items?x=1",
                headers: ["Content-Type": "application/json"],
                body: CapturedBody(data: Data(#"{"a":1}"#.utf8), contentType: "application/json")),
            response: CapturedResponse(statusCode: 201, headers: ["Content-Length": "2"], body: CapturedBody(data: Data("ok".utf8)), httpVersion: "HTTP/1.1"),
            labels: ["screen": "Checkout"],
            capturePath: .session)
    }

    @Test func contractKeysArePresentWithExplicitNulls() throws {
        let data = try ExchangeJSON.line(Self.sample())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["id", "startedAt", "duration", "request", "response", "error", "labels", "capturePath"] {
            #expect(object.keys.contains(key), "missing \(key)")
        }
        #expect(object["error"] is NSNull)
        #expect(object["startedAt"] as? String == "2026-05-28T20:26:40.250Z")
        #expect(object["capturePath"] as? String == "session")
        let request = try #require(object["request"] as? [String: Any])
        #expect(request["bodySize"] as? Int == 7)
        #expect((request["headers"] as? [[String: String]])?.first?["name"] == "Content-Type")
        let response = try #require(object["response"] as? [String: Any])
        #expect(response["status"] as? Int == 201)
        #expect(response["bodySize"] as? Int == 2)
    }

    @Test func decodesWhatItEncodes() throws {
        var exchange = Self.sample()
        exchange.error = CaptureError(category: .timeout, domain: "NSURLErrorDomain", code: -1001, message: "timed out")
        exchange.redirects = [RedirectHop(url: "http://a/1", statusCode: 302, location: "http://a/2")]
        // The contract keeps milliseconds: use instants that are whole milliseconds in binary too.
        exchange.metrics = TimingMetrics(fetchStart: exchange.startedAt, responseStart: exchange.startedAt.addingTimeInterval(0.125))
        let data = try ExchangeJSON.encoder().encode(exchange)
        let decoded = try ExchangeJSON.decoder().decode(Exchange.self, from: data)
        #expect(decoded == exchange)
    }

    @Test func datesAreRoundedToTheMillisecond() throws {
        let base = 1_796_226_920.0
        for millisecond in 0..<1000 {
            let expected = String(format: ".%03dZ", millisecond)
            let exact = Date(timeIntervalSince1970: base + Double(millisecond) / 1000)
            #expect(ExchangeJSON.formatDate(exact) == "2026-12-02T15:55:20" + expected)
            // Rounded, not truncated: 0.4 ms later is still the same millisecond.
            #expect(ExchangeJSON.formatDate(exact.addingTimeInterval(0.0004)) == "2026-12-02T15:55:20" + expected)
            let parsed = try #require(ExchangeJSON.parseDate(ExchangeJSON.formatDate(exact)))
            #expect(ExchangeJSON.formatDate(parsed) == ExchangeJSON.formatDate(exact))
        }
        #expect(ExchangeJSON.formatDate(Date(timeIntervalSince1970: base + 0.9996)) == "2026-12-02T15:55:21.000Z")
        #expect(ExchangeJSON.formatDate(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test func rejectsAMalformedDateNamingTheField() {
        let json = #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","startedAt":"yesterday","request":{"method":"GET","url":"x"}}"#
        do {
            _ = try ExchangeJSON.decoder().decode(Exchange.self, from: Data(json.utf8))
            Issue.record("decoding should fail")
        } catch {
            #expect("\(error)".contains("startedAt"))
        }
    }
}

@Suite struct ErrorCategoryTests {
    @Test(arguments: [
        ("NSURLErrorDomain", -1001, "x", ErrorCategory.timeout),
        ("NSURLErrorDomain", -1003, "x", .dns),
        ("NSURLErrorDomain", -1004, "x", .connect),
        ("NSURLErrorDomain", -999, "x", .cancelled),
        ("NSURLErrorDomain", -1202, "x", .tls),
        ("NSURLErrorDomain", -1005, "x", .httpNone),
        ("NSURLErrorDomain", -1, "SSL certificate problem: unable to get local issuer certificate", .tls),
        ("NSURLErrorDomain", -1, "Could not resolve host: nowhere", .dns),
        ("NSCocoaErrorDomain", 3072, "x", .cancelled),
        ("NSPOSIXErrorDomain", 111, "x", .connect),
        ("Other", 7, "something", .other),
    ])
    func classifies(domain: String, code: Int, message: String, expected: ErrorCategory) {
        #expect(ErrorCategory.classify(domain: domain, code: code, message: message) == expected)
    }

    @Test func readsAnNSError() {
        let error = NSError(domain: NSURLErrorDomain, code: NSURLErrorTimedOut, userInfo: [NSLocalizedDescriptionKey: "The request timed out."])
        let captured = CaptureError(error)
        #expect(captured.category == .timeout && captured.code == -1001 && captured.message == "The request timed out.")
    }
}

@Suite struct URLTemplateTests {
    @Test(arguments: [
        ("/users/42/orders", "/users/{id}/orders"),
        ("/items/6F9619FF-8B86-D011-B42D-00C04FC964FF", "/items/{id}"),
        ("/blobs/5f2b9c1e8a7d4e3f9a1b", "/blobs/{id}"),
        ("/v2/search", "/v2/search"),
        ("/", "/"),
        ("", "/"),
    ])
    func templates(path: String, expected: String) {
        #expect(URLTemplate.template(forPath: path) == expected)
    }

    @Test func ignoresQuery() {
        #expect(URLTemplate.template(forURL: "https://a.example/users/7?page=2") == "/users/{id}")
    }
}

import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// Hand-written HAR files shaped like those of Chrome, Firefox, mitmproxy and Charles
/// (Fixtures/*.har) import with the values they contain.
@Suite struct HARImportFixtureTests {
    static func load(_ name: String) throws -> [Exchange] {
        try HARReader(options: .init(sessionID: "fixture")).decode(contentsOf: Fixture.url(name))
    }

    /// Whether `date` is the instant `text` names, to under a microsecond (the two sides come from
    /// different parsers, and one bit of a Date near 2025 is already 0.12 µs).
    static func isInstant(_ date: Date, _ text: String) -> Bool {
        guard let expected = ExchangeJSON.parseDate(text) else { return false }
        return abs(date.timeIntervalSince(expected)) < 5e-7
    }

    @Test func chrome() throws {
        let exchanges = try Self.load("chrome.har")
        #expect(exchanges.count == 5)
        #expect(exchanges.allSatisfy { $0.capturePath == .imported && $0.sessionID == "fixture" })
        #expect(Set(exchanges.map(\.id)).count == 5, "every entry gets its own id")

        let cart = exchanges[0]
        #expect(cart.request.method == "POST")
        #expect(cart.request.url == "https://shop.example.test/api/cart?lang=en&ref=home%20page")
        #expect(cart.request.headers.count == 7, "HTTP/2 pseudo-headers are kept as the file lists them")
        #expect(cart.request.headers["cookie"] == "sid=abc123; theme=dark")
        #expect(cart.request.body?.text == #"{"sku":"A-17","quantity":2}"#)
        #expect(cart.request.body?.contentType == "application/json")
        #expect(cart.request.body?.size == 27)
        #expect(Self.isInstant(cart.startedAt, "2025-03-14T09:26:53.742Z"))
        let response = try #require(cart.response)
        #expect(response.statusCode == 201)
        #expect(response.httpVersion == "http/2.0")
        #expect(response.body?.text == #"{"cartId":"c-9","items":2,"total":"€41.90"}"#)
        #expect(response.body?.size == 45)
        // Fractional milliseconds round to the microsecond.
        #expect(cart.duration == 0.087416)
        let metrics = try #require(cart.metrics)
        #expect(metrics.remoteAddress == "2001:db8::10", "brackets around IPv6 are dropped")
        #expect(metrics.domainLookupStart == nil && metrics.connectStart == nil, "dns and connect were -1")
        let wait = try #require(TimingMetrics.interval(metrics.requestEnd, metrics.responseStart))
        #expect(abs(wait - 0.084419) < 1e-6)

        let image = exchanges[1]
        #expect(image.response?.body?.data == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]))
        #expect(image.response?.body?.contentType == "image/png")

        let failed = exchanges[2]
        #expect(failed.response == nil, "status 0 means no response")
        #expect(failed.error?.category == .dns)
        #expect(failed.error?.message == "net::ERR_NAME_NOT_RESOLVED")
        #expect(failed.duration == 0)

        let login = exchanges[3]
        #expect(login.request.body?.text == "user=ana&next=%2Fcart%3Fa%3D1", "text wins over params")
        #expect(login.response?.statusCode == 302)
        #expect(login.response?.headers["Location"] == "/cart")
        #expect(login.response?.body == nil, "no text and size 0: no body")
        let loginMetrics = try #require(login.metrics)
        #expect(abs((TimingMetrics.interval(loginMetrics.connectStart, loginMetrics.connectEnd) ?? 0) - 0.060) < 1e-6)
        #expect(abs((TimingMetrics.interval(loginMetrics.secureConnectionStart, loginMetrics.secureConnectionEnd) ?? 0) - 0.03025) < 1e-6)
        #expect(loginMetrics.secureConnectionEnd == loginMetrics.connectEnd, "ssl is the end of connect")

        let hero = exchanges[4]
        let body = try #require(hero.response?.body)
        #expect(body.data.isEmpty)
        #expect(body.size == 5120)
        #expect(body.unavailableReason != nil, "the file had no text for it")
    }

    @Test func firefox() throws {
        let exchanges = try Self.load("firefox.har")
        #expect(exchanges.count == 3)
        let page = exchanges[0]
        // +01:00 offset: 10:26 local is 09:26 UTC.
        #expect(Self.isInstant(page.startedAt, "2025-03-14T09:26:53.123Z"))
        #expect(page.request.body == nil)
        #expect(page.request.headers.count == 3)
        #expect(page.response?.body?.text == "<!doctype html><title>Guide</title>é!")
        #expect(page.duration == 0.090)
        let metrics = try #require(page.metrics)
        #expect(metrics.remoteAddress == "192.0.2.44")
        #expect(abs((TimingMetrics.interval(metrics.domainLookupStart, metrics.domainLookupEnd) ?? 0) - 0.012) < 1e-6)

        let search = exchanges[1]
        // Params only (no text): the body is rebuilt as a form.
        #expect(search.request.body?.text == "q=swift%20testing%20caf%C3%A9&page=1")
        #expect(search.response?.statusCode == 404)
        #expect(search.response?.body?.text == "{\"error\":\"no hit\"}\n")
        #expect(search.metrics?.fetchStart == nil, "blocked -1: no fetch start")

        let font = exchanges[2]
        #expect(font.response?.body?.size == 20480)
        #expect(font.response?.body?.data.isEmpty == true)
    }

    @Test func mitmproxy() throws {
        let exchanges = try Self.load("mitmproxy.har")
        #expect(exchanges.count == 2)
        let user = exchanges[0]
        #expect(Self.isInstant(user.startedAt, "2025-03-14T09:26:53.589123Z"), "microseconds and +00:00 are kept")
        #expect(user.request.headers.fields == [
            HTTPHeaderField(name: "Host", value: "api.example.test:8080"),
            HTTPHeaderField(name: "Accept", value: "*/*"),
            HTTPHeaderField(name: "X-Trace", value: "a1b2"),
        ], "[name, value] pairs")
        #expect(user.response?.statusCode == 404)
        #expect(user.response?.body?.text == #"{"error":"user not found"}"#)
        #expect(user.duration == 0.123457, "123.456789 ms rounds to the microsecond")
        #expect(user.metrics?.remoteAddress == "203.0.113.9")

        let avatar = exchanges[1]
        #expect(avatar.request.body?.data == Data([0x00, 0x01, 0xFE, 0xFF]))
        #expect(avatar.response?.body?.data == Data([0xFF, 0x00, 0xFE]))
        #expect(Self.isInstant(avatar.startedAt, "2025-03-14T09:26:54.000001Z"))
    }

    @Test func charles() throws {
        let exchanges = try Self.load("charles.har")
        let orders = try #require(exchanges.first)
        #expect(exchanges.count == 1)
        #expect(orders.response?.body?.text == #"{"orders":[]}"#, "base64 content is decoded")
        #expect(orders.response?.body?.contentType == "application/json")
        #expect(Self.isInstant(orders.startedAt, "2025-03-14T09:26:53.500Z"))
        #expect(orders.duration == 0.064)
        #expect(orders.request.headers["Authorization"] == "Bearer ***")
    }

    @Test(arguments: ["chrome.har", "firefox.har", "mitmproxy.har", "charles.har"])
    func importedFilesExportAsValidHARThatReimportsTheSame(name: String) throws {
        let imported = try Self.load(name)
        let exported = HAR.encode(imported)
        #expect(try HAR.decode(exported) == imported)
        #expect(HAR.encode(try HAR.decode(exported)) == exported)
    }
}

import Foundation
import Testing
@testable import NetTapCore

/// `Exchange` keeps most of its fields in storage shared between copies; it must still behave as
/// a plain value: a change to one copy, however deep, never shows in another.
@Suite struct ExchangeValueSemanticsTests {
    private func sample() -> Exchange {
        Exchange(
            sessionID: "session-1", startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 0.25,
            request: CapturedRequest(method: "GET", url: "https://api.example.test/items?page=2", headers: ["Accept": "*/*"]),
            response: CapturedResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: CapturedBody(data: Data("[]".utf8))),
            redirects: [RedirectHop(url: "https://old.example.test/items", statusCode: 301, location: "https://api.example.test/items")],
            labels: ["screen": "Catalog"], capturePath: .session)
    }

    @Test func deepChangesToACopyLeaveTheOriginalAsItWas() {
        let original = sample()
        var copy = original
        copy.request.headers.add(name: "Authorization", value: "Bearer x")
        copy.response?.headers.set(name: "Content-Type", value: "text/plain")
        copy.response?.body = nil
        copy.redirects[0].location = "https://elsewhere.example.test/"
        copy.labels["screen"] = "Checkout"
        copy.sessionID = "session-2"
        copy.modifications.append(ExchangeModification(rule: "r", action: "mock", detail: "d"))

        #expect(original.request.headers.map(\.name) == ["Accept"])
        #expect(original.response?.headers["content-type"] == "application/json")
        #expect(original.response?.body?.data == Data("[]".utf8))
        #expect(original.redirects[0].location == "https://api.example.test/items")
        #expect(original.labels == ["screen": "Catalog"])
        #expect(original.sessionID == "session-1")
        #expect(original.modifications.isEmpty)
        #expect(copy.request.headers["authorization"] == "Bearer x")
        #expect(copy.response?.headers["content-type"] == "text/plain")
        #expect(copy.response?.body == nil)
        #expect(copy.labels["screen"] == "Checkout")
        #expect(copy != original)
    }

    @Test func equalContentIsEqualAndHashesAlikeWhateverItsStorage() {
        let first = sample()
        var second = sample()
        second.id = first.id
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(Set([first, second]).count == 1)

        var changedBack = first
        changedBack.labels["screen"] = "Other"
        #expect(changedBack != first)
        changedBack.labels["screen"] = "Catalog"
        #expect(changedBack == first)
        #expect(changedBack.hashValue == first.hashValue)

        var otherStatus = first
        otherStatus.response?.statusCode = 500
        #expect(otherStatus != first)
        var otherDuration = first
        otherDuration.duration = 1
        #expect(otherDuration != first)
    }

    @Test func roundTripsThroughTheJSONContract() throws {
        let exchange = sample()
        let data = try ExchangeJSON.encoder().encode(exchange)
        let decoded = try ExchangeJSON.decoder().decode(Exchange.self, from: data)
        #expect(decoded == exchange)
    }
}

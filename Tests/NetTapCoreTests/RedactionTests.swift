import Foundation
import Testing
@testable import NetTapCore

@Suite struct RedactionTests {
    let redactor = Redactor(policy: .default)

    @Test func credentialsInHeadersKeepTheirShape() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer abc.def", "Cookie": "session=s3cr3t; theme=dark",
            "X-Api-Key": "k", "Accept": "*/*",
        ]
        let redacted = redactor.redact(headers)
        #expect(redacted["authorization"] == "Bearer REDACTED")
        #expect(redacted["cookie"] == "session=REDACTED; theme=REDACTED")
        #expect(redacted["x-api-key"] == "REDACTED")
        #expect(redacted["accept"] == "*/*")
    }

    @Test func setCookieKeepsAttributes() {
        let redacted = redactor.redact(HTTPHeaders(["Set-Cookie": "sid=abc; Path=/; HttpOnly"]))
        #expect(redacted["Set-Cookie"] == "sid=REDACTED; Path=/; HttpOnly")
    }

    @Test func queryItemsAreRedactedAndTheRestIsUntouched() {
        let url = "https://a.example/p?user=bob&access_token=xyz&sig=1%2B2&page=2#frag"
        #expect(redactor.redact(url: url) == "https://a.example/p?user=bob&access_token=REDACTED&sig=REDACTED&page=2#frag")
        #expect(redactor.redact(url: "https://a.example/p?q=1") == "https://a.example/p?q=1")
    }

    @Test func jsonFieldsAreRedactedAtAnyDepthKeepingLayout() {
        let json = #"{"user": "bob", "auth": {"refreshToken": "r1", "nested": [{"password": {"x": [1,2]}}]}, "count": 3, "signature":12.5}"#
        let body = CapturedBody(data: Data(json.utf8), contentType: "application/json; charset=utf-8")
        let redacted = redactor.redact(body: body)
        #expect(redacted.text == #"{"user": "bob", "auth": {"refreshToken": "REDACTED", "nested": [{"password": "REDACTED"}]}, "count": 3, "signature":"REDACTED"}"#)
        #expect(redacted.isRedacted)
    }

    @Test func truncatedJSONIsStillRedacted() {
        let body = CapturedBody(data: Data(#"{"a": 1, "token": "abcdefgh"#.utf8), contentType: "application/json", isTruncated: true)
        #expect(redactor.redact(body: body).text == #"{"a": 1, "token": "REDACTED""#)
    }

    @Test func formBodies() {
        let body = CapturedBody(data: Data("user=bob&password=hunter2".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(redactor.redact(body: body).text == "user=bob&password=REDACTED")
    }

    @Test func wholeExchangeIncludingResponse() {
        let exchange = Exchange(
            sessionID: "s", startedAt: Date(),
            request: CapturedRequest(method: "GET", url: "http://h/?token=t", headers: ["Authorization": "Basic xyz"]),
            response: CapturedResponse(
                statusCode: 200, headers: ["Set-Cookie": "a=b"],
                body: CapturedBody(data: Data(#"{"access_token":"T"}"#.utf8), contentType: "application/json")),
            capturePath: .session)
        let redacted = redactor.redact(exchange)
        let text = String(decoding: try! ExchangeJSON.line(redacted), as: UTF8.self)
        for secret in ["token=t", "xyz", "a=b", "\\\"T\\\""] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
    }

    @Test func secretsReflectedByTheResponseAreScrubbedToo() {
        let exchange = Exchange(
            sessionID: "s", startedAt: Date(),
            request: CapturedRequest(
                method: "POST", url: "http://h/login?api_key=KEY-7788&page=2", headers: ["Authorization": "Bearer tok.abc.def"],
                body: CapturedBody(data: Data(#"{"password":"correct horse"}"#.utf8), contentType: "application/json")),
            response: CapturedResponse(
                statusCode: 400, headers: ["X-Debug": "auth=Bearer tok.abc.def"],
                body: CapturedBody(data: Data("bad password 'correct horse' for key KEY-7788; page 2".utf8), contentType: "text/plain")),
            capturePath: .session)
        let redacted = redactor.redact(exchange)
        #expect(redacted.response?.body?.text == "bad password 'REDACTED' for key REDACTED; page 2")
        #expect(redacted.response?.body?.isRedacted == true)
        #expect(redacted.response?.headers["X-Debug"] == "auth=Bearer REDACTED")
    }

    @Test func noneRedactsNothing() {
        let headers: HTTPHeaders = ["Authorization": "Bearer x"]
        #expect(Redactor(policy: .none).redact(headers) == headers)
    }

    @Test func customFieldNames() {
        var policy = RedactionPolicy.default
        policy.fieldNames.insert("ssn")
        #expect(Redactor(policy: policy).redact(url: "http://h/?SSN=1") == "http://h/?SSN=REDACTED")
    }
}

@Suite struct RingBufferSinkTests {
    @Test func keepsTheNewestInOrder() async {
        let sink = RingBufferSink(capacity: 3)
        for index in 0..<5 {
            sink.receive(.finished(Exchange(sessionID: "s", startedAt: Date(), request: CapturedRequest(method: "GET", url: "http://h/\(index)"), capturePath: .session)))
        }
        await sink.waitForExchanges(count: 5)
        #expect(sink.exchanges.map(\.request.url) == ["http://h/2", "http://h/3", "http://h/4"])
        #expect(sink.receivedCount == 5)
    }
}

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

    /// What `isSensitiveField` meant before it compared bytes: normalize, then String equality and
    /// `hasSuffix`. The byte comparison must give the same answer for every name, printable ASCII
    /// or not, under the default policy, one with a non-ASCII suffix, and one changed in place.
    @Test func fieldNamesAreJudgedAsStringComparisonWouldJudgeThem() {
        func reference(_ policy: RedactionPolicy, _ name: String) -> Bool {
            let normalized = RedactionPolicy.normalize(name)
            return !normalized.isEmpty
                && (policy.fieldNames.contains(normalized) || policy.fieldSuffixes.contains { normalized.hasSuffix($0) })
        }
        var accented = RedactionPolicy.default
        accented.fieldSuffixes.insert("clé")
        var grown = RedactionPolicy.default
        grown.fieldNames.insert("ssn")
        grown.fieldSuffixes.insert("pin")
        let names = [
            "token", "Token", "ACCESS_TOKEN", "access-token", "x.access.token", "refreshToken", "id_token", "tokens",
            "password", "Passwd", "new_password", "passwords", "secret", "clientSecret", "secretive", "api_key", "X-Api-Key",
            "apikey", "sig", "SIG", "mysig", "signature", "Signature-V4", "user", "page", "Content-Type", "", "-", "_._",
            "t", "en", "tökén", "pass\u{301}word", "passwörd", "to\r\nken", "tok\u{0}en", "token\u{7f}", "ma clé",
            "ssn", "SSN", "pin", "P-I-N", "card_pin", "pinned", "🔑token", "émoji_secret",
        ]
        for policy in [RedactionPolicy.default, accented, grown] {
            for name in names {
                #expect(policy.isSensitiveField(name) == reference(policy, name), "\(name) under \(policy.fieldSuffixes)")
            }
        }
        #expect(grown.isSensitiveField("SSN") && grown.isSensitiveField("card-PIN") && !RedactionPolicy.default.isSensitiveField("ssn"))
        #expect(accented.isSensitiveField("Ma_Clé") && !RedactionPolicy.default.isSensitiveField("Ma_Clé"))
    }

    /// What `isSensitiveHeader` meant before header names were compared as bytes: the lowercased
    /// name in `headerNames`, or a sensitive field name. Checked under the default policy, one
    /// with entries added in place (one in capitals, which the lowercased name never equals), and
    /// one with a non-ASCII entry, for names of every kind.
    @Test func headerNamesAreJudgedAsLowercasedLookupWouldJudgeThem() {
        func reference(_ policy: RedactionPolicy, _ name: String) -> Bool {
            policy.headerNames.contains(name.lowercased()) || policy.isSensitiveField(name)
        }
        var grown = RedactionPolicy.default
        grown.headerNames.insert("x-session")
        grown.headerNames.insert("X-Upper")
        grown.headerNames.insert("")
        var accented = RedactionPolicy.default
        accented.headerNames.insert("x-clé")
        let names = [
            "Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization", "proxy_authorization", "Cookie",
            "cookies", "Set-Cookie", "set-cookie2", "X-Session", "x-session", "X_Session", "X-Upper", "x-upper", "",
            "X-Clé", "x-clé", "X-CLÉ", "Content-Type", "X-Api-Key", "Authorizatio", "Authorization ", "Cookie\u{301}",
            "Au\u{0}thorization", "Cöokie", "🍪", "X-Access-Token", "x.auth.token", "Api-Key", "X_SIGNATURE", "Last-Modified",
            "ETag", "-", "...", "Set_Cookie", "set.cookie", "Passwd-", "X-Sig",
        ]
        for policy in [RedactionPolicy.default, grown, accented] {
            for name in names {
                #expect(policy.isSensitiveHeader(name) == reference(policy, name), "\(name) under \(policy.headerNames)")
            }
        }
        #expect(grown.isSensitiveHeader("X-SESSION") && !RedactionPolicy.default.isSensitiveHeader("X-Session"))
        #expect(grown.isSensitiveHeader("") && !RedactionPolicy.default.isSensitiveHeader(""))
        #expect(accented.isSensitiveHeader("X-CLÉ") && !grown.isSensitiveHeader("X-Upper"))
    }

    @Test func escapedJSONKeysAreReadAsTheirText() {
        let json = #"{"pass\u0077ord": "p1", "to\"ken": "kept", "a\\b": 1, "api_key": "k2"}"#
        let body = CapturedBody(data: Data(json.utf8), contentType: "application/json")
        #expect(redactor.redact(body: body).text == #"{"pass\u0077ord": "REDACTED", "to\"ken": "kept", "a\\b": 1, "api_key": "REDACTED"}"#)
    }

    @Test func encodedQueryNamesAreDecodedBeforeTheyAreJudged() {
        #expect(redactor.redact(url: "http://h/?access%5Ftoken=t1&api+key=2&Sig=3&x=4")
            == "http://h/?access%5Ftoken=REDACTED&api+key=2&Sig=REDACTED&x=4")
    }

    /// Every reflection of a secret in a text body is scrubbed, the longer of two overlapping
    /// secrets first; a body that is not UTF-8 text is left alone, secret bytes or not.
    @Test func reflectedSecretsAreScrubbedFromTextBodiesOnly() {
        func exchange(responseBody: Data, type: String) -> Exchange {
            Exchange(
                sessionID: "s", startedAt: Date(),
                request: CapturedRequest(
                    method: "GET", url: "http://h/?token=abcd1234&sig=abcd", headers: ["Authorization": "Bearer abcd1234xyz"]),
                response: CapturedResponse(
                    statusCode: 200, headers: ["X-Echo": "abcd1234xyz and abcd1234"],
                    body: CapturedBody(data: responseBody, contentType: type)),
                capturePath: .session)
        }
        let text = redactor.redact(exchange(responseBody: Data("got abcd1234xyz, abcd1234, abcd1234 and abcd".utf8), type: "text/plain"))
        #expect(text.response?.body?.text == "got REDACTED, REDACTED, REDACTED and REDACTED")
        #expect(text.response?.body?.isRedacted == true)
        #expect(text.response?.headers["X-Echo"] == "REDACTED and REDACTED")

        let binary = Data([0xff, 0xfe] + Array("abcd1234".utf8) + [0xc3])
        let untouched = redactor.redact(exchange(responseBody: binary, type: "application/octet-stream"))
        #expect(untouched.response?.body?.data == binary)
        #expect(untouched.response?.body?.isRedacted == false)
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

import Foundation
import NetTapCore
import Testing
import NetTapRules

@Suite struct ReplayEngineTests {
    private func exchange(
        _ method: String, _ url: String, headers: HTTPHeaders = HTTPHeaders(), body: String? = nil,
        contentType: String? = nil, status: Int = 200, answer: String = ""
    ) -> Exchange {
        Exchange(
            sessionID: "s", startedAt: Date(timeIntervalSince1970: 0),
            request: CapturedRequest(
                method: method, url: url, headers: headers,
                body: body.map { CapturedBody(data: Data($0.utf8), contentType: contentType) }),
            response: CapturedResponse(statusCode: status, body: CapturedBody(data: Data(answer.utf8))),
            capturePath: .imported)
    }

    private func live(
        _ method: String, _ url: String, headers: HTTPHeaders = HTTPHeaders(), body: String? = nil,
        contentType: String? = nil
    ) -> CapturedRequest {
        CapturedRequest(
            method: method, url: url, headers: headers,
            body: body.map { CapturedBody(data: Data($0.utf8), contentType: contentType) })
    }

    private func answer(_ result: ReplayEngine.Result) -> String? {
        guard case .hit(let exchange, _) = result, let data = exchange.response?.body?.data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private func miss(_ result: ReplayEngine.Result) -> ReplayMiss? {
        if case .miss(let miss) = result { return miss }
        return nil
    }

    @Test func queryItemsMatchAsAMultisetInAnyOrder() {
        let engine = ReplayEngine(fixtures: [exchange("GET", "https://a.com/s?b=2&a=1&a=3", answer: "one")])
        #expect(answer(engine.lookup(live("GET", "https://a.com:443/s?a=3&b=2&a=1"))) == "one")
        let repeatedDiffers = ReplayEngine(fixtures: [exchange("GET", "https://a.com/s?a=1&a=1")])
        #expect(miss(repeatedDiffers.lookup(live("GET", "https://a.com/s?a=1"))) != nil)
    }

    @Test func keyCoversMethodSchemeHostPortAndPath() {
        let engine = ReplayEngine(fixtures: [exchange("GET", "https://a.com/x", answer: "x")], options: ReplayOptions(reuseLast: true))
        #expect(answer(engine.lookup(live("GET", "https://A.COM/x"))) == "x")
        #expect(miss(engine.lookup(live("POST", "https://a.com/x"))) != nil)
        #expect(miss(engine.lookup(live("GET", "http://a.com/x"))) != nil)
        #expect(miss(engine.lookup(live("GET", "https://a.com:8443/x"))) != nil)
        #expect(miss(engine.lookup(live("GET", "https://b.com/x"))) != nil)
        #expect(miss(engine.lookup(live("GET", "https://a.com/y"))) != nil)
    }

    @Test func ignoredQueryItemsLeaveTheKey() {
        let engine = ReplayEngine(
            fixtures: [exchange("GET", "https://a.com/feed?page=1&_=111", answer: "p1")],
            options: ReplayOptions(ignoreQueryItems: ["_", "ts"]))
        #expect(answer(engine.lookup(live("GET", "https://a.com/feed?ts=9&page=1&_=222"))) == "p1")
    }

    @Test func repeatedRequestsConsumeEntriesInRecordedOrder() {
        let fixtures = [
            exchange("GET", "https://a.com/poll", answer: "first"), exchange("GET", "https://a.com/other", answer: "o"),
            exchange("GET", "https://a.com/poll", answer: "second"), exchange("GET", "https://a.com/poll", answer: "third"),
        ]
        let engine = ReplayEngine(fixtures: fixtures)
        let answers = (0..<3).map { _ in answer(engine.lookup(live("GET", "https://a.com/poll"))) }
        #expect(answers == ["first", "second", "third"])
        #expect(engine.remainingCount == 1)
        let exhausted = miss(engine.lookup(live("GET", "https://a.com/poll")))
        #expect(exhausted?.isExhausted == true)
        #expect(
            exhausted?.message
                == "every recorded entry matching GET https://a.com/poll has been used (last: entry #3); set reuseLast to keep answering with the last one")
    }

    @Test func reuseLastKeepsAnsweringWithTheLastEntry() {
        let engine = ReplayEngine(
            fixtures: [exchange("GET", "https://a.com/t", answer: "1"), exchange("GET", "https://a.com/t", answer: "2")],
            options: ReplayOptions(reuseLast: true))
        let answers = (0..<4).map { _ in answer(engine.lookup(live("GET", "https://a.com/t"))) }
        #expect(answers == ["1", "2", "2", "2"])
    }

    @Test func matchHeadersAndIgnoreHeaders() {
        let fixtures = [
            exchange("GET", "https://a.com/me", headers: ["X-Env": "prod", "X-Trace": "1"], answer: "prod"),
            exchange("GET", "https://a.com/me", headers: ["X-Env": "qa", "X-Trace": "2"], answer: "qa"),
        ]
        let named = ReplayEngine(fixtures: fixtures, options: ReplayOptions(matchHeaders: ["x-env"]))
        #expect(answer(named.lookup(live("GET", "https://a.com/me", headers: ["x-env": "qa", "X-Trace": "9"]))) == "qa")
        let all = ReplayEngine(fixtures: fixtures, options: ReplayOptions(ignoreHeaders: ["X-Trace"], matchHeaders: ["*"]))
        #expect(answer(all.lookup(live("GET", "https://a.com/me", headers: ["X-Env": "prod", "X-Trace": "7"]))) == "prod")
        #expect(miss(all.lookup(live("GET", "https://a.com/me", headers: ["X-Env": "prod", "Accept": "*/*"]))) != nil)
        let none = ReplayEngine(fixtures: fixtures)
        #expect(answer(none.lookup(live("GET", "https://a.com/me", headers: ["X-Env": "other"]))) == "prod")
    }

    @Test func jsonBodiesMatchByValue() {
        let engine = ReplayEngine(
            fixtures: [exchange("POST", "https://a.com/q", body: #"{"a": 1, "b": [true, {"c": 2.0}]}"#, answer: "json")],
            options: ReplayOptions(matchBody: .json))
        #expect(answer(engine.lookup(live("POST", "https://a.com/q", body: #"{"b":[true,{"c":2}],"a":1.0}"#))) == "json")
        let differs = miss(engine.lookup(live("POST", "https://a.com/q", body: #"{"b":[true,{"c":3}],"a":1}"#)))
        #expect(differs?.differences == [ReplayDifference(field: "body", detail: "$.b[1].c: live 3, recorded 2.0")])
        let exact = ReplayEngine(
            fixtures: [exchange("POST", "https://a.com/q", body: #"{"a": 1}"#)], options: ReplayOptions(matchBody: .exact))
        #expect(miss(exact.lookup(live("POST", "https://a.com/q", body: #"{"a":1}"#)))?.differences.map(\.field) == ["body"])
    }

    @Test func formBodiesMatchAsMultisets() {
        let engine = ReplayEngine(
            fixtures: [exchange("POST", "https://a.com/login", body: "user=ann&tag=a&tag=b&note=hi+there")],
            options: ReplayOptions(matchBody: .form, reuseLast: true))
        #expect(answer(engine.lookup(live("POST", "https://a.com/login", body: "tag=b&note=hi%20there&user=ann&tag=a"))) != nil)
        let differs = miss(engine.lookup(live("POST", "https://a.com/login", body: "user=bob&tag=a&tag=b&note=hi+there")))
        #expect(differs?.differences == [ReplayDifference(field: "body", detail: "form field user: live \"bob\", recorded \"ann\"")])
        let ignored = ReplayEngine(
            fixtures: [exchange("POST", "https://a.com/login", body: "x")], options: ReplayOptions(matchBody: ReplayOptions.BodyMatching.none))
        #expect(answer(ignored.lookup(live("POST", "https://a.com/login", body: "completely different"))) != nil)
    }

    @Test func strictMissShowsTheClosestEntryFieldByField() {
        let fixtures = [
            exchange("GET", "https://api.example.com/v1/users?page=1"),
            exchange("POST", "https://api.example.com/v1/search?q=cats&page=1&lang=en", headers: ["X-Env": "prod"], body: #"{"limit": 10}"#),
            exchange("DELETE", "https://api.example.com/v1/search"),
        ]
        let engine = ReplayEngine(fixtures: fixtures, options: ReplayOptions(matchHeaders: ["x-env"], matchBody: .json))
        let result = miss(engine.lookup(live(
            "POST", "https://api.example.com/v1/search?q=cats&page=2&debug=1", headers: ["X-Env": "qa"], body: #"{"limit": 20}"#)))
        #expect(result?.closestIndex == 1)
        #expect(
            result?.message == """
                no recorded entry matches POST https://api.example.com/v1/search?q=cats&page=2&debug=1
                closest: entry #1 POST https://api.example.com/v1/search?q=cats&page=1&lang=en
                  query item page: live "2", recorded "1"
                  query item debug: live "1", recorded absent
                  query item lang: live absent, recorded "en"
                  header X-Env: live "qa", recorded "prod"
                  body: $.limit: live 20, recorded 10
                """)
        let methodOnly = miss(engine.lookup(live("PUT", "https://api.example.com/v1/users?page=1")))
        #expect(methodOnly?.closestIndex == 0)
        #expect(methodOnly?.differences == [ReplayDifference(field: "method", detail: "live \"PUT\", recorded \"GET\"")])
        #expect(miss(ReplayEngine(fixtures: []).lookup(live("GET", "https://a.com/")))?.message
            == "no recorded entry matches GET https://a.com/: the recording is empty")
    }

    @Test func redactedFixturesMatchRedactedLiveRequests() {
        let redactor = Redactor(policy: .default)
        // Fixtures as they were recorded: already redacted.
        let recorded = redactor.redact(
            exchange(
                "POST", "https://api.example.com/v1/orders?access_token=abc123&page=1",
                headers: ["Authorization": "Bearer secret-1", "Content-Type": "application/json"],
                body: #"{"item": 7, "password": "hunter2"}"#, contentType: "application/json", answer: "created"))
        #expect(recorded.request.url == "https://api.example.com/v1/orders?access_token=REDACTED&page=1")
        let engine = ReplayEngine(
            fixtures: [recorded], options: ReplayOptions(matchHeaders: ["authorization"], matchBody: .json),
            redact: { redactor.redact($0) })
        // The live request carries different secrets; after redaction it is the same request.
        let request = live(
            "POST", "https://api.example.com/v1/orders?page=1&access_token=zzz999",
            headers: ["Authorization": "Bearer secret-2"], body: #"{"password": "other", "item": 7}"#,
            contentType: "application/json")
        #expect(answer(engine.lookup(request)) == "created")
        // Without redaction of the live request, the secrets make it miss.
        let unredacted = ReplayEngine(fixtures: [recorded], options: ReplayOptions(matchHeaders: ["authorization"], matchBody: .json))
        #expect(miss(unredacted.lookup(request)) != nil)
    }

    @Test func concurrentLookupsHandOutEachEntryOnce() async {
        let fixtures = (0..<200).map { exchange("GET", "https://a.com/n", answer: String($0)) }
        let engine = ReplayEngine(fixtures: fixtures)
        let answers = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<200 {
                group.addTask { self.answer(engine.lookup(self.live("GET", "https://a.com/n"))) }
            }
            var collected: [String?] = []
            for await answer in group { collected.append(answer) }
            return collected
        }
        #expect(Set(answers.compactMap { $0 }) == Set((0..<200).map(String.init)))
        #expect(engine.remainingCount == 0)
    }

    @Test func replayRuleLoadsItsOptions() throws {
        let rules = try ruleSet(
            """
            {"version": 1, "rules": [{"match": {"host": "api.example.com"}, "actions": [{"replay": {"har": "fixtures/s.har",
              "ignoreQueryItems": ["_"], "ignoreHeaders": ["X-Trace"], "matchHeaders": ["Accept"], "matchBody": "form",
              "reuseLast": true, "mode": "recordMissing"}}]}]}
            """, directory: URL(fileURLWithPath: "/srv/app"))
        guard case .replay(let source) = rules.evaluate(request("GET", "https://api.example.com/")).terminal else {
            Issue.record("no replay")
            return
        }
        #expect(source.harFile.path == "/srv/app/fixtures/s.har")
        #expect(source.options == ReplayOptions(
            ignoreQueryItems: ["_"], ignoreHeaders: ["x-trace"], matchHeaders: ["accept"], matchBody: .form, reuseLast: true,
            mode: .recordMissing))
    }
}

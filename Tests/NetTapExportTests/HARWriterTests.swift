import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// HAR written by NetTap, read back with Foundation's JSONSerialization (not NetTap's parser) and
/// checked field by field against the HAR 1.2 spec.
@Suite struct HARWriterTests {
    typealias Object = [String: Any]

    static func document(_ exchanges: [Exchange]) throws -> Object {
        let json = try JSONSerialization.jsonObject(with: HAR.encode(exchanges))
        return try #require(json as? Object)
    }

    static func entries(_ exchanges: [Exchange]) throws -> [Object] {
        let log = try #require(try document(exchanges)["log"] as? Object)
        return try #require(log["entries"] as? [Object])
    }

    static func entry(_ exchange: Exchange) throws -> Object {
        try #require(try entries([exchange]).first)
    }

    static func number(_ value: Any?) -> Double? {
        guard let value, !(value is Bool) || value is NSNumber else { return nil }
        return (value as? NSNumber)?.doubleValue
    }

    /// The milliseconds of a timing, which must be a number.
    static func ms(_ object: Object, _ key: String) throws -> Double {
        try #require(number(object[key]), "\(key) must be a number")
    }

    @Test func logHasVersionCreatorPagesAndEveryEntry() throws {
        let log = try #require(try Self.document(SampleExchanges.all)["log"] as? Object)
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? Object)
        #expect(creator["name"] as? String == "NetTap")
        #expect(creator["version"] is String)
        #expect((log["pages"] as? [Any])?.isEmpty == true)
        #expect((log["entries"] as? [Any])?.count == SampleExchanges.all.count)
    }

    @Test(arguments: SampleExchanges.names)
    func everyEntryHasTheRequiredFieldsWithTheirTypes(sample: String) throws {
        let entry = try Self.entry(try SampleExchanges.named(sample))
        let started = try #require(entry["startedDateTime"] as? String)
        #expect(ExchangeJSON.parseDate(started) != nil, "startedDateTime \(started) is ISO 8601")
        #expect(Self.number(entry["time"]) != nil)
        #expect(entry["cache"] is Object)

        let request = try #require(entry["request"] as? Object)
        for key in ["method", "url", "httpVersion"] { #expect(request[key] is String, "request.\(key)") }
        for key in ["cookies", "headers", "queryString"] { #expect(request[key] is [Any], "request.\(key)") }
        for key in ["headersSize", "bodySize"] { #expect(Self.number(request[key]) != nil, "request.\(key)") }
        if let postData = request["postData"] {
            let postData = try #require(postData as? Object)
            #expect(postData["mimeType"] is String)
        }
        for header in try #require(request["headers"] as? [Object]) {
            #expect(header["name"] is String && header["value"] is String)
        }

        let response = try #require(entry["response"] as? Object)
        #expect(Self.number(response["status"]) != nil)
        for key in ["statusText", "httpVersion", "redirectURL"] { #expect(response[key] is String, "response.\(key)") }
        for key in ["cookies", "headers"] { #expect(response[key] is [Any], "response.\(key)") }
        for key in ["headersSize", "bodySize"] { #expect(Self.number(response[key]) != nil, "response.\(key)") }
        let content = try #require(response["content"] as? Object)
        #expect(Self.number(content["size"]) != nil)
        #expect(content["mimeType"] is String)

        let timings = try #require(entry["timings"] as? Object)
        for key in ["send", "wait", "receive"] { #expect(try Self.ms(timings, key) >= 0, "\(key) is never -1") }
        for key in ["blocked", "dns", "connect", "ssl"] { #expect(try Self.ms(timings, key) >= -1) }
    }

    @Test(arguments: SampleExchanges.names)
    func timeIsTheSumOfTheKnownTimingsAndTheDuration(sample: String) throws {
        let exchange = try SampleExchanges.named(sample)
        let entry = try Self.entry(exchange)
        let timings = try #require(entry["timings"] as? Object)
        let phases = try ["blocked", "dns", "connect", "send", "wait", "receive"].map { try Self.ms(timings, $0) }
        let time = try Self.ms(entry, "time")
        #expect(abs(time - phases.filter { $0 >= 0 }.reduce(0, +)) < 1e-9, "time \(time) vs \(phases)")
        if let duration = exchange.duration {
            #expect(abs(time - duration * 1000) < 1e-6)
        }
    }

    @Test func timingsComeFromTheMetricsAndConnectIncludesSSL() throws {
        let timings = try #require(try Self.entry(SampleExchanges.fullMetrics)["timings"] as? Object)
        // SampleExchanges.fullMetrics lays the phases out by hand: 1 + 12.5 + 30 + 0.125 + 40 + 2.375 = 86 ms.
        #expect(try Self.ms(timings, "blocked") == 1)
        #expect(try Self.ms(timings, "dns") == 12.5)
        #expect(try Self.ms(timings, "connect") == 30)
        #expect(try Self.ms(timings, "ssl") == 18.25)
        #expect(try Self.ms(timings, "send") == 0.125)
        #expect(try Self.ms(timings, "wait") == 40)
        #expect(try Self.ms(timings, "receive") == 2.375)
    }

    @Test func withoutMetricsTheWholeDurationIsWaitAndTheRestUnknown() throws {
        let entry = try Self.entry(SampleExchanges.binaryUpload)
        let timings = try #require(entry["timings"] as? Object)
        for key in ["blocked", "dns", "connect", "ssl"] { #expect(try Self.ms(timings, key) == -1, "\(key)") }
        #expect(try Self.ms(timings, "send") == 0)
        #expect(try Self.ms(timings, "wait") == 250)
        #expect(try Self.ms(timings, "receive") == 0)
        #expect(try Self.ms(entry, "time") == 250)
    }

    @Test func timeTheMetricsDoNotCoverGoesToBlocked() throws {
        // Linux-style metrics: fetch at +10 ms, first byte at +70, end at +90, duration 100 ms.
        let timings = try #require(try Self.entry(SampleExchanges.redirected)["timings"] as? Object)
        #expect(try Self.ms(timings, "wait") == 60)
        #expect(try Self.ms(timings, "receive") == 20)
        #expect(try Self.ms(timings, "send") == 0)
        #expect(try Self.ms(timings, "blocked") == 20)
        #expect(try Self.ms(timings, "dns") == -1)
    }

    @Test func startedDateTimeKeepsMicrosecondsInUTC() throws {
        var exchange = SampleExchanges.binaryUpload
        exchange.startedAt = SampleExchanges.at(123_456)
        #expect(try Self.entry(exchange)["startedDateTime"] as? String == "2026-05-28T20:26:40.373456Z")
        #expect(try Self.entry(SampleExchanges.fullMetrics)["startedDateTime"] as? String == "2026-05-28T20:26:40.250Z")
    }

    @Test func textBodiesAreTextAndBinaryBodiesBase64() throws {
        let upload = try Self.entry(SampleExchanges.binaryUpload)
        let request = try #require(upload["request"] as? Object)
        let postData = try #require(request["postData"] as? Object)
        #expect(postData["mimeType"] as? String == "application/octet-stream")
        #expect(postData["_encoding"] as? String == "base64")
        #expect(Data(base64Encoded: try #require(postData["text"] as? String)) == SampleExchanges.binary)
        #expect(Self.number(request["bodySize"]) == 256)

        let content = try #require((upload["response"] as? Object)?["content"] as? Object)
        #expect(content["encoding"] as? String == "base64")
        #expect(Data(base64Encoded: try #require(content["text"] as? String))
            == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]))
        #expect(Self.number(content["size"]) == 10)

        let json = try #require((try Self.entry(SampleExchanges.fullMetrics)["response"] as? Object)?["content"] as? Object)
        #expect(json["text"] as? String == #"{"items":[1,2,3],"name":"café"}"#)
        #expect(json["encoding"] == nil)
        #expect(json["mimeType"] as? String == "application/json; charset=utf-8")
    }

    @Test func truncatedAndRedactedBodiesAreFlaggedWithTheirOriginalSizes() throws {
        let entry = try Self.entry(SampleExchanges.truncated)
        let response = try #require(entry["response"] as? Object)
        #expect(response["_bodyTruncated"] as? Bool == true)
        #expect(Self.number(response["bodySize"]) == 1_000_000)
        let content = try #require(response["content"] as? Object)
        #expect(Self.number(content["size"]) == 1_000_000)
        #expect((content["text"] as? String)?.utf8.count == 1024)
        let request = try #require(entry["request"] as? Object)
        #expect(request["_bodyRedacted"] as? Bool == true)
        #expect(request["_bodyTruncated"] == nil)
    }

    @Test func unavailableBodiesHaveSizeButNoText() throws {
        let entry = try Self.entry(SampleExchanges.unavailable)
        let response = try #require(entry["response"] as? Object)
        #expect(response["_bodyUnavailable"] as? String == "download task: bytes go to a file")
        let content = try #require(response["content"] as? Object)
        #expect(Self.number(content["size"]) == 5_000_000)
        #expect(content["text"] == nil)
        // An empty request body is still a body: postData with empty text.
        let postData = try #require((entry["request"] as? Object)?["postData"] as? Object)
        #expect(postData["text"] as? String == "")
    }

    @Test func aFailedExchangeIsStatusZeroWithItsError() throws {
        let entry = try Self.entry(SampleExchanges.failed)
        let response = try #require(entry["response"] as? Object)
        #expect(Self.number(response["status"]) == 0)
        #expect((response["headers"] as? [Any])?.isEmpty == true)
        let error = try #require(entry["_error"] as? Object)
        #expect(error["category"] as? String == "timeout")
        #expect(error["domain"] as? String == "NSURLErrorDomain")
        #expect(Self.number(error["code"]) == -1001)
        #expect(error["message"] as? String == "The request timed out.")
        #expect(try Self.ms(entry, "time") == 30_000)
    }

    @Test func cookiesComeFromTheHeaders() throws {
        let entry = try Self.entry(SampleExchanges.fullMetrics)
        let requestCookies = try #require((entry["request"] as? Object)?["cookies"] as? [Object])
        #expect(requestCookies.map { $0["name"] as? String } == ["sid", "theme"])
        #expect(requestCookies.map { $0["value"] as? String } == ["abc123", "dark"])
        let responseCookies = try #require((entry["response"] as? Object)?["cookies"] as? [Object])
        #expect(responseCookies.count == 2)
        let sid = responseCookies[0]
        #expect(sid["name"] as? String == "sid")
        #expect(sid["value"] as? String == "xyz789")
        #expect(sid["path"] as? String == "/")
        #expect(sid["domain"] as? String == "example.test")
        #expect(sid["expires"] as? String == "2026-10-21T07:28:00.000Z")
        #expect(sid["httpOnly"] as? Bool == true)
        #expect(sid["secure"] as? Bool == true)
        #expect(sid["sameSite"] as? String == "Lax")
        #expect(responseCookies[1]["name"] as? String == "seen")
    }

    @Test func queryStringIsParsedAndDecoded() throws {
        let request = try #require(try Self.entry(SampleExchanges.fullMetrics)["request"] as? Object)
        let query = try #require(request["queryString"] as? [Object])
        #expect(query.map { $0["name"] as? String } == ["page", "q", "flag"])
        #expect(query.map { $0["value"] as? String } == ["2", "café au lait", ""])
    }

    @Test func wireSizesAreUnknownUnderAContentCoding() throws {
        let response = try #require(try Self.entry(SampleExchanges.fullMetrics)["response"] as? Object)
        #expect(Self.number(response["bodySize"]) == -1, "gzip: bytes on the wire unknown")
        let decodedSize = try #require(SampleExchanges.fullMetrics.response?.body?.data.count)
        #expect(Self.number((response["content"] as? Object)?["size"]) == Double(decodedSize), "decoded size known")
        #expect(Self.number(response["headersSize"]) == -1)
        #expect(response["status"] as? Int == 200)
        #expect(response["statusText"] as? String == "OK")
        #expect(response["httpVersion"] as? String == "h2")
    }

    @Test func netTapFieldsCarryIdentityLabelsAndRules() throws {
        let entry = try Self.entry(SampleExchanges.redirected)
        #expect(entry["_id"] as? String == "00000000-0000-4000-8000-000000000005")
        #expect(entry["_sessionId"] as? String == "session-B")
        #expect(entry["_capturePath"] as? String == "session")
        let redirects = try #require(entry["_redirects"] as? [Object])
        #expect(redirects.map { $0["statusCode"] as? Int } == [301, 302])
        #expect(redirects.last?["location"] as? String == "https://new.example.test/c")
        let modifications = try #require(entry["_modifications"] as? [Object])
        #expect(modifications.map { $0["action"] as? String } == ["rewrite", "throttle"])
        #expect((entry["response"] as? Object)?["_url"] as? String == "https://new.example.test/c")

        let labelled = try Self.entry(SampleExchanges.fullMetrics)
        #expect(labelled["_labels"] as? [String: String] == ["screen": "Catalog", "scenario": "browse", "ünïcode": "✓"])
        #expect(labelled["serverIPAddress"] as? String == "203.0.113.7")
    }

    @Test func inFlightExchangesSayTheirDurationIsUnknown() throws {
        let entry = try Self.entry(SampleExchanges.inFlight)
        #expect(entry["_durationUnknown"] as? Bool == true)
        #expect(try Self.ms(entry, "time") == 0)
        #expect(entry["_metrics"] is NSNull)
    }

    @Test func outputIsDeterministicWithLabelsSorted() throws {
        var exchange = SampleExchanges.fullMetrics
        let first = HAR.encode([exchange])
        // Same labels inserted in another order: a dictionary's order must not leak into the file.
        exchange.labels = [:]
        for key in ["ünïcode", "scenario", "screen"].reversed() { exchange.labels[key] = SampleExchanges.fullMetrics.labels[key] }
        #expect(HAR.encode([exchange]) == first)
        let text = String(decoding: first, as: UTF8.self)
        let scenario = try #require(text.range(of: "\"scenario\""))
        let screen = try #require(text.range(of: "\"screen\""))
        #expect(scenario.lowerBound < screen.lowerBound)
    }

    @Test func anEmptyExportIsAValidHAR() throws {
        let writer = HARWriter(sink: DataSink())
        try writer.finish()
        let document = try Self.document([])
        let log = try #require(document["log"] as? Object)
        #expect((log["entries"] as? [Any])?.isEmpty == true)
    }

    @Test func writingAfterFinishIsAnError() throws {
        let writer = HARWriter(sink: DataSink())
        try writer.write(SampleExchanges.failed)
        try writer.finish()
        #expect(throws: HARWriterError.finished) { try writer.write(SampleExchanges.failed) }
    }
}

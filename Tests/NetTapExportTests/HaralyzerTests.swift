import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// A real third-party HAR reader, haralyzer (PyPI), reads a file NetTap wrote, and sees the
/// entries, statuses, sizes, times and bodies NetTap put there. CI installs it with
/// `pip install haralyzer`; without it this test fails and says so.
@Suite struct HaralyzerTests {
    /// Reads the HAR at argv[1] with haralyzer's parser and prints what it saw as JSON.
    static let script = #"""
        import json, sys
        from haralyzer import HarParser
        parser = HarParser.from_file(sys.argv[1])
        seen = []
        for page in parser.pages:
            for entry in page.entries:
                timings = entry.timings
                seen.append({
                    "page": page.page_id,
                    "url": entry.url,
                    "method": entry.request.method,
                    "status": entry.status,
                    "bodySize": entry.response.bodySize,
                    "contentSize": entry.response.contentSize,
                    "encoding": entry.response.textEncoding,
                    "text": entry.response.raw_entry["content"].get("text"),
                    "requestBodySize": entry.request.bodySize,
                    "time": entry.time,
                    "timingsTotal": sum(timings[k] for k in ("blocked", "dns", "connect", "send", "wait", "receive") if timings[k] >= 0),
                    "start": entry.startTime.isoformat(),
                })
        print(json.dumps({"version": parser.version, "creator": parser.creator["name"], "entries": seen}))
        """#

    @Test func haralyzerReadsNetTapHAR() throws {
        let check = try ChildProcess.run("/usr/bin/env", ["python3", "-c", "import haralyzer"])
        try #require(
            check.status == 0,
            "haralyzer is not installed for python3 (run `pip install haralyzer`): \(check.stderrText)")

        let directory = try TemporaryDirectory()
        let url = directory.file("nettap.har")
        let exchanges = SampleExchanges.all
        try HAR.encode(exchanges).write(to: url)
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", Self.script, url.path])
        try #require(result.status == 0, "haralyzer failed: \(result.stderrText)")

        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["version"] as? String == "1.2")
        #expect(report["creator"] as? String == "NetTap")
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(entries.count == exchanges.count)

        for (seen, exchange) in zip(entries, exchanges) {
            let name = exchange.request.url
            #expect(seen["page"] as? String == "unknown", "entries without pageref: \(name)")
            #expect(seen["url"] as? String == exchange.request.url)
            #expect(seen["method"] as? String == exchange.request.method)
            #expect(seen["status"] as? Int == exchange.response?.statusCode ?? 0, "\(name)")
            let body = exchange.response?.body
            #expect(seen["contentSize"] as? Int == body.map { Int($0.size ?? -1) } ?? 0, "\(name)")
            let coded = exchange.response?.headers["Content-Encoding"] != nil
            #expect(seen["bodySize"] as? Int == (coded ? -1 : body.map { Int($0.size ?? -1) } ?? 0), "\(name)")
            #expect(seen["requestBodySize"] as? Int == exchange.request.body.map { Int($0.size ?? -1) } ?? 0)
            let time = try #require(seen["time"] as? Double)
            #expect(abs(time - (exchange.duration ?? 0) * 1000) < 1e-6, "\(name)")
            #expect(abs(time - (seen["timingsTotal"] as? Double ?? -1)) < 1e-6, "\(name)")
            let startText = try #require(seen["start"] as? String)
            let start = try #require(ExchangeJSON.parseDate(startText), "haralyzer's start \(startText)")
            #expect(abs(start.timeIntervalSince(exchange.startedAt)) < 1e-6, "\(name)")

            if let body, body.unavailableReason == nil {
                let text = try #require(seen["text"] as? String, "\(name)")
                if seen["encoding"] as? String == "base64" {
                    #expect(Data(base64Encoded: text) == body.data, "\(name)")
                } else {
                    #expect(Data(text.utf8) == body.data, "\(name)")
                }
            } else {
                #expect(seen["text"] is NSNull, "\(name): no text without bytes")
            }
        }
    }
}

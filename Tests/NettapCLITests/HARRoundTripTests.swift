import Foundation
import NetTapTestSupport
import Testing

/// The round trip the issue asks for: real loopback traffic captured by `nettap fetch --store`,
/// exported as HAR, imported into a fresh store, exported again; the two files are the same JSON
/// apart from the exchange ids. A real third-party reader (haralyzer) reads the export and sees
/// the entries, statuses and body sizes that NetTap stored.
@Suite struct HARRoundTripTests {
    /// `"_id":"<uuid>"` in any entry, replaced by a fixed token.
    static func withoutIDs(_ text: String) -> String {
        text.replacingOccurrences(
            of: #""_id":"[0-9A-Fa-f-]{36}""#, with: #""_id":"ID""#, options: .regularExpression)
    }

    @Test func exportImportExportGivesTheSameHAR() throws {
        let traffic = try CapturedTraffic()
        let first = traffic.directory.file("first.har")
        let second = traffic.directory.file("second.har")
        let fresh = traffic.directory.file("fresh.sqlite").path

        let exported = try Nettap.succeed(["export", "--store", traffic.store, "--format", "har", "-o", first.path])
        #expect(exported.stdout == "Exported \(traffic.requests.count) exchanges to \(first.path).")
        let imported = try Nettap.succeed(["import", "--store", fresh, first.path])
        #expect(imported.stdout == "Imported \(traffic.requests.count) exchanges from \(first.path) into \(fresh).")
        try Nettap.succeed(["export", "--store", fresh, "--format", "har", "-o", second.path])

        let firstText = try String(contentsOf: first, encoding: .utf8)
        let secondText = try String(contentsOf: second, encoding: .utf8)
        let (firstIDs, secondIDs) = (Self.ids(firstText), Self.ids(secondText))
        #expect(firstIDs.count == traffic.requests.count)
        #expect(secondIDs.count == traffic.requests.count)
        // Apart from ids, exactly the same text: every field, every body, every timing.
        #expect(Self.withoutIDs(firstText) == Self.withoutIDs(secondText))
        if Self.withoutIDs(firstText) != Self.withoutIDs(secondText) {
            for (a, b) in zip(firstText.split(separator: "\n"), secondText.split(separator: "\n")) where Self.withoutIDs(String(a)) != Self.withoutIDs(String(b)) {
                Issue.record("first differing entry:\n\(a)\n\(b)")
                break
            }
        }
        // The export is oldest first: the order the requests were made.
        let entries = try Self.entries(first)
        #expect(entries.count == traffic.requests.count)
        for (entry, request) in zip(entries, traffic.requests) {
            let url = (entry["request"] as? [String: Any])?["url"] as? String
            #expect(url == traffic.url(request))
            #expect(entry["_capturePath"] as? String == request.via)
        }
    }

    static func ids(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: #""_id":""#) else { return nil }
            return String(line[range.upperBound...].prefix(36))
        }
    }

    static func entries(_ file: URL) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        return try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
    }

    /// Reads the HAR at argv[1] with haralyzer and prints, per entry, what it saw.
    static let haralyzerScript = #"""
        import json, sys
        from haralyzer import HarParser
        parser = HarParser.from_file(sys.argv[1])
        seen = []
        for page in parser.pages:
            for entry in page.entries:
                seen.append({
                    "url": entry.url,
                    "method": entry.request.method,
                    "status": entry.status,
                    "contentSize": entry.response.contentSize,
                    "bodySize": entry.response.bodySize,
                    "requestBodySize": entry.request.bodySize,
                })
        print(json.dumps({"version": parser.version, "creator": parser.creator["name"], "entries": seen}))
        """#

    @Test func haralyzerReadsTheExportedHAR() throws {
        let check = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", "import haralyzer"])
        try #require(
            try check.waitForExit(timeout: 60) == .exited(0),
            "haralyzer is not installed for python3 (run `pip install haralyzer`): \(check.standardErrorText)")

        let traffic = try CapturedTraffic()
        let har = traffic.directory.file("export.har")
        try Nettap.succeed(["export", "--store", traffic.store, "-o", har.path])
        let reader = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", Self.haralyzerScript, har.path])
        try #require(try reader.waitForExit(timeout: 60) == .exited(0), "haralyzer failed: \(reader.standardErrorText)")
        let output = try reader.remainingLines(timeout: 10).joined(separator: "\n")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(report["version"] as? String == "1.2")
        #expect(report["creator"] as? String == "NetTap")
        let seen = try #require(report["entries"] as? [[String: Any]])

        // What the store says, oldest first, as haralyzer must see it.
        let page = try Nettap.succeed(["list", "--store", traffic.store, "--json", "--limit", "100"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]]).reversed()
        #expect(seen.count == traffic.requests.count)
        try #require(seen.count == rows.count)
        for ((entry, row), request) in zip(zip(seen, rows), traffic.requests) {
            let name = "\(request.via) \(request.method) \(request.target)"
            #expect(entry["url"] as? String == traffic.url(request), "\(name)")
            #expect(entry["method"] as? String == request.method, "\(name)")
            #expect(entry["status"] as? Int == (request.status ?? 0), "\(name)")
            let responseSize = row["responseSize"] as? Int ?? 0
            #expect(entry["contentSize"] as? Int == responseSize, "\(name)")
            #expect(entry["bodySize"] as? Int == responseSize, "\(name)")
            #expect(entry["requestBodySize"] as? Int == row["requestSize"] as? Int, "\(name)")
            if let size = request.responseSize {
                #expect(responseSize == size, "\(name)")
            }
        }
    }
}

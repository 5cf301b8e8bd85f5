import Foundation
import NetTapTestSupport
import Testing

/// The filters `list`, `export` and `stats` share, against a store whose every exchange the test
/// wrote: each filter selects exactly the exchanges it should, newest first.
@Suite struct FilterTests {
    /// Seven exchanges spread over ten days, hosts, methods, outcomes, labels, sessions and paths.
    static func sample(now: Date) -> [SampleExchange] {
        func ago(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(-seconds) }
        var exchanges = [
            SampleExchange(id: SampleExchange.id(1), startedAt: ago(10 * 86_400), url: "http://api.example.com/users/1",
                           labels: ["screen": "home"]),
            SampleExchange(id: SampleExchange.id(2), startedAt: ago(3 * 3600), method: "POST", url: "http://api.example.com/orders",
                           status: 201, labels: ["screen": "checkout", "flow": "buy"], capturePath: "protocol"),
            SampleExchange(id: SampleExchange.id(3), sessionID: "session-B", startedAt: ago(90 * 60),
                           url: "http://cdn.example.com/img/logo.png", status: 404, capturePath: "protocol"),
            SampleExchange(id: SampleExchange.id(4), sessionID: "session-B", startedAt: ago(30 * 60),
                           url: "http://api.example.com/users/2", status: 503, labels: ["screen": "checkout"]),
            SampleExchange(id: SampleExchange.id(5), sessionID: "session-B", startedAt: ago(10 * 60),
                           url: "http://api.example.com/slow", status: nil, error: "timeout"),
            SampleExchange(id: SampleExchange.id(6), sessionID: "session-C", startedAt: ago(5 * 60), method: "DELETE",
                           url: "http://API.example.com/orders/7", status: 204, labels: ["screen": "checkout", "flow": "cancel"],
                           capturePath: "import"),
            SampleExchange(id: SampleExchange.id(7), sessionID: "session-C", startedAt: ago(60),
                           url: "http://cdn.example.com/app.js", status: 500, capturePath: "import"),
        ]
        exchanges[4].responseBody = nil
        return exchanges
    }

    static let cases: [([String], [Int])] = [
        ([], [7, 6, 5, 4, 3, 2, 1]),
        (["--since", "1h"], [7, 6, 5, 4]),
        (["--until", "1h"], [3, 2, 1]),
        (["--since", "4h", "--until", "20m"], [4, 3, 2]),
        (["--since", "2w"], [7, 6, 5, 4, 3, 2, 1]),
        (["--host", "api.example.com"], [6, 5, 4, 2, 1]),
        (["--host", "CDN.example.com"], [7, 3]),
        (["--method", "get"], [7, 5, 4, 3, 1]),
        (["--method", "DELETE"], [6]),
        (["--status", "404"], [3]),
        (["--status", "5xx"], [7, 4]),
        (["--status", "200-299"], [6, 2, 1]),
        (["--error", "timeout"], [5]),
        (["--error", "dns"], []),
        (["--label", "screen=checkout"], [6, 4, 2]),
        (["--label", "screen=checkout", "--label", "flow=cancel"], [6]),
        (["--session", "session-B"], [5, 4, 3]),
        (["--url", "ORDERS"], [6, 2]),
        (["--template", "/users/{id}"], [4, 1]),
        (["--template", "/orders/{id}"], [6]),
        (["--template", "/orders"], [2]),
        (["--path", "import"], [7, 6]),
        (["--path", "protocol"], [3, 2]),
        (["--path", "session"], [5, 4, 1]),
        (["--failures"], [7, 5, 4, 3]),
        (["--host", "api.example.com", "--failures", "--since", "1h"], [5, 4]),
    ]

    @Test func eachFilterSelectsExactlyItsExchanges() throws {
        let directory = try TemporaryDirectory()
        let store = try SampleExchange.store(Self.sample(now: Date()), in: directory)
        for (arguments, expected) in Self.cases {
            let ids = try Nettap.listIDs(["--store", store] + arguments)
            #expect(ids == expected.map { SampleExchange.id($0) }, "list \(arguments.joined(separator: " "))")
        }
    }

    @Test func absoluteTimesInUTCOffsetsAndLocalTime() throws {
        let directory = try TemporaryDirectory()
        let now = Date()
        let store = try SampleExchange.store(Self.sample(now: now), in: directory)
        let iso = ISO8601DateFormatter()
        let twoHoursAgo = now.addingTimeInterval(-7200)
        #expect(try Nettap.listIDs(["--store", store, "--since", iso.string(from: twoHoursAgo)])
                == [7, 6, 5, 4, 3].map { SampleExchange.id($0) })
        iso.timeZone = TimeZone(secondsFromGMT: 5 * 3600)
        #expect(try Nettap.listIDs(["--store", store, "--until", iso.string(from: twoHoursAgo)])
                == [2, 1].map { SampleExchange.id($0) })

        // A time as `nettap list` prints it (local, TZ=UTC here) selects from that exchange on.
        let table = try Nettap.succeed(["list", "--store", store, "--session", "session-B"])
        let row = try #require(table.lines.first { $0.contains("api.example.com/users/2") }, "\(table)")
        let printed = row.split(separator: " ").prefix(2).joined(separator: " ")
        #expect(try Nettap.listIDs(["--store", store, "--since", printed]) == [7, 6, 5, 4].map { SampleExchange.id($0) })
        #expect(try Nettap.listIDs(["--store", store, "--until", printed]) == [3, 2, 1].map { SampleExchange.id($0) })
        let day = String(printed.prefix(10))
        #expect(try Nettap.listIDs(["--store", store, "--since", day, "--session", "session-B"]).contains(SampleExchange.id(4)))
    }

    @Test func exportAndStatsApplyTheSameFilters() throws {
        let directory = try TemporaryDirectory()
        let store = try SampleExchange.store(Self.sample(now: Date()), in: directory)
        let export = try Nettap.succeed(["export", "--store", store, "--format", "ndjson", "--label", "screen=checkout"])
        let exported = try export.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["id"] as? String
        }
        #expect(exported == [2, 4, 6].map { SampleExchange.id($0) })

        let stats = try Nettap.succeed(["stats", "--store", store, "--json", "--failures"]).jsonObject()
        #expect(stats["exchanges"] as? Int == 4)
        #expect(stats["failures"] as? Int == 4)
        #expect(stats["noResponse"] as? Int == 1)
        #expect(stats["errors"] as? [String: Int] == ["timeout": 1])
        let classes = try #require(stats["statusClasses"] as? [String: Int])
        #expect(classes == ["1xx": 0, "2xx": 0, "3xx": 0, "4xx": 1, "5xx": 2, "other": 0])
        // The store's own figures are for the whole file.
        #expect((stats["store"] as? [String: Any])?["exchanges"] as? Int == 7)
    }
}

import Foundation
import NetTapTestSupport
import Testing

/// `nettap fetch --store` keeps what it captured, through both capture paths, and `nettap list`
/// shows it exactly: newest first, with method, URL, status or error, sizes and capture path.
@Suite struct FetchStoreTests {
    @Test func listShowsEveryCapturedExchangeNewestFirst() throws {
        let traffic = try CapturedTraffic()
        let page = try Nettap.succeed(["list", "--store", traffic.store, "--json", "--limit", "100"]).jsonObject()
        let rows = try #require(page["exchanges"] as? [[String: Any]])
        #expect(page["nextCursor"] is NSNull)
        let expected = Array(traffic.requests.reversed())
        try #require(rows.count == expected.count, "rows: \(rows)")
        for (row, request) in zip(rows, expected) {
            let name = "\(request.via) \(request.method) \(request.target)"
            #expect(row["method"] as? String == request.method, "\(name)")
            #expect(row["url"] as? String == traffic.url(request), "\(name)")
            #expect(row["host"] as? String == "127.0.0.1", "\(name)")
            #expect(row["capturePath"] as? String == request.via, "\(name)")
            if let status = request.status {
                #expect(row["status"] as? Int == status, "\(name)")
                #expect(row["error"] is NSNull, "\(name)")
            } else {
                #expect(row["status"] is NSNull, "\(name)")
                #expect(row["error"] as? String == "http-none", "\(name)")
            }
            if let size = request.responseSize {
                #expect(row["responseSize"] as? Int == size, "\(name)")
            }
            let requestSize = request.target == "/echo" ? CapturedTraffic.jsonBody.utf8.count
                : request.target == "/echo/raw" ? CapturedTraffic.binaryBody.count : 0
            #expect(row["requestSize"] as? Int == requestSize, "\(name)")
            #expect((row["duration"] as? Double ?? -1) >= 0, "\(name)")
        }
        // Each fetch process is one capture session.
        let sessions = Set(rows.compactMap { $0["sessionId"] as? String })
        #expect(sessions.count == 7)
        // What reached the server is what was kept: one request per exchange, plus the redirect hops.
        #expect(traffic.server.receivedRequests.count == expected.count + 2)
    }

    @Test func listTablePrintsOneAlignedLinePerExchange() throws {
        let traffic = try CapturedTraffic()
        let ids = try Nettap.listIDs(["--store", traffic.store])
        let result = try Nettap.succeed(["list", "--store", traffic.store])
        let header = try #require(result.lines.first)
        #expect(header.split(separator: " ", omittingEmptySubsequences: true) == ["TIME", "METHOD", "STATUS", "DURATION", "SIZE", "URL", "ID"])
        let rows = Array(result.lines.dropFirst())
        try #require(rows.count == traffic.requests.count, "\(result)")
        let base = "127.0.0.1:\(traffic.server.port)"
        for (line, (request, id)) in zip(rows, zip(traffic.requests.reversed(), ids)) {
            let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // TIME is two cells (date and time); DURATION and SIZE hold a number and a unit.
            #expect(cells[2] == request.method, "\(line)")
            #expect(cells[3] == (request.status.map(String.init) ?? "http-none"), "\(line)")
            #expect(cells[cells.count - 2] == base + request.target, "\(line)")
            #expect(cells.last == String(id.suffix(8)), "\(line)")
            // Every column starts where the header's does.
            #expect(line.range(of: base + request.target)?.lowerBound.utf16Offset(in: line)
                    == header.range(of: "URL")?.lowerBound.utf16Offset(in: header), "\(line)")
        }
        #expect(!result.stdout.contains("next page"))
        #expect(result.stderr.isEmpty)
    }

    @Test func fetchWithNoStoreKeepsNothing() throws {
        let directory = try TemporaryDirectory()
        let server = try ScenarioServer()
        defer { _ = server.stop() }
        let result = try Nettap.succeed(
            ["fetch", "--no-store", server.url("/text/5").absoluteString], currentDirectory: directory.url)
        #expect(result.stdout == String(decoding: ScenarioBytes.text(count: 5), as: UTF8.self).trimmingCharacters(in: .newlines))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}

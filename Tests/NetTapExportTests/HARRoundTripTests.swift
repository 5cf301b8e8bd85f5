import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// exchanges -> HAR -> exchanges -> HAR: NetTap's own HAR loses nothing and is a fixed point.
@Suite struct HARRoundTripTests {
    @Test func decodeReproducesTheExchangesExactly() throws {
        let exchanges = SampleExchanges.all
        let decoded = try HAR.decode(HAR.encode(exchanges))
        #expect(decoded.count == exchanges.count)
        for (original, again) in zip(exchanges, decoded) {
            #expect(again == original, "exchange \(original.id) changed in the round trip")
        }
    }

    @Test func exportImportExportIsByteIdentical() throws {
        let first = HAR.encode(SampleExchanges.all)
        let second = HAR.encode(try HAR.decode(first))
        #expect(second == first)
    }

    @Test func exchangesWithSubMicrosecondInstantsReachAFixedPointAfterOneTrip() throws {
        // Live captures carry instants finer than HAR keeps; after one export they are quantized,
        // and from then on every export is the same.
        var exchange = SampleExchanges.fullMetrics
        exchange.startedAt = Date(timeIntervalSince1970: 1_780_000_000.123_456_789)
        exchange.duration = 0.086_000_4
        exchange.metrics?.responseStart = Date(timeIntervalSince1970: 1_780_000_000.190_000_333)
        let first = HAR.encode([exchange])
        let second = HAR.encode(try HAR.decode(first))
        #expect(second == first)
        let decoded = try #require(try HAR.decode(second).first)
        #expect(abs(decoded.startedAt.timeIntervalSince(exchange.startedAt)) < 1e-6)
        #expect(abs((decoded.duration ?? 0) - 0.086) < 1e-9)
    }

    @Test func foreignHARBecomesAFixedPointAfterImport() throws {
        // A browser-shaped entry (no NetTap fields) imported, exported, imported, exported.
        let foreign = Data(#"""
            {"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[
            {"startedDateTime":"2025-03-14T10:26:53.589+01:00","time":61.25,
             "request":{"method":"GET","url":"https://example.test/a?x=1","httpVersion":"HTTP/2","headers":[],"cookies":[],"queryString":[],"headersSize":-1,"bodySize":0},
             "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/2","headers":[{"name":"Content-Type","value":"text/plain"}],"cookies":[],
                         "content":{"size":5,"mimeType":"text/plain","text":"hello"},"redirectURL":"","headersSize":-1,"bodySize":5},
             "cache":{},"timings":{"blocked":0.5,"dns":10,"connect":20.25,"ssl":15,"send":0.5,"wait":25,"receive":5},
             "serverIPAddress":"[2001:db8::1]"}]}}
            """#.utf8)
        let imported = try HAR.decode(foreign, options: .init(sessionID: "import-7"))
        let first = HAR.encode(imported)
        let reimported = try HAR.decode(first)
        #expect(reimported == imported)
        #expect(HAR.encode(reimported) == first)
        let exchange = try #require(imported.first)
        #expect(exchange.sessionID == "import-7")
        #expect(exchange.capturePath == .imported)
        #expect(exchange.metrics?.remoteAddress == "2001:db8::1")
    }

    @Test func aReimportedFileDiffersOnlyInIdsWhenIdsAreDropped() throws {
        // What the store does on `nettap import` of a file without `_id`s: new ids, same content.
        let text = String(decoding: HAR.encode(SampleExchanges.all), as: UTF8.self)
        let withoutIDs = text.replacingOccurrences(
            of: #""_id":"[0-9A-F-]{36}","#, with: "", options: .regularExpression)
        let imported = try HAR.decode(Data(withoutIDs.utf8))
        let exported = String(decoding: HAR.encode(imported), as: UTF8.self)
        let stripped = exported.replacingOccurrences(of: #""_id":"[0-9A-F-]{36}","#, with: "", options: .regularExpression)
        #expect(stripped == withoutIDs)
        #expect(Set(imported.map(\.id)).isDisjoint(with: SampleExchanges.all.map(\.id)))
    }

    @Test func streamingReadHandsOverEntriesInOrder() throws {
        var seen: [UUID] = []
        try HARReader().read(HAR.encode(SampleExchanges.all)) { seen.append($0.id) }
        #expect(seen == SampleExchanges.all.map(\.id))
    }

    @Test func errorsThrownByTheConsumerPassThroughUnchanged() throws {
        struct StoreFull: Error, Equatable {}
        var count = 0
        #expect(throws: StoreFull()) {
            try HARReader().read(HAR.encode(SampleExchanges.all)) { _ in
                count += 1
                if count == 3 { throw StoreFull() }
            }
        }
        #expect(count == 3)
    }

    @Test func readingAFileNamesItInErrors() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("broken.har")
        try Data(#"{"log":{"entries":[{"startedDateTime":7}]}}"#.utf8).write(to: url)
        do {
            _ = try HARReader().decode(contentsOf: url)
            Issue.record("a broken file was accepted")
        } catch {
            #expect(error.description == "\(url.path): entry 0: startedDateTime: expected a string, found number (entry at line 1)")
        }
        let missing = directory.file("missing.har")
        do {
            _ = try HARReader().decode(contentsOf: missing)
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.file == missing.path)
            #expect(error.reason.hasPrefix("cannot read the file"))
        }
    }
}

import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// Malformed HAR files (Fixtures/malformed) are rejected as a whole, each with a message that
/// names the entry index and the field, or the line and column of the JSON error.
@Suite struct HARMalformedImportTests {
    static let expectations: [(file: String, message: String)] = [
        ("01-not-json.har", "line 1, column 1: expected a value, found 't'"),
        ("02-truncated.har", "line 3, column 1: expected ',' or ']' after an array element, found end of input"),
        ("03-root-array.har", "expected an object with a \"log\" member at the top level, found array"),
        ("04-no-log.har", "log: missing"),
        ("05-log-string.har", "log: expected an object, found string"),
        ("06-no-entries.har", "log.entries: missing"),
        ("07-entries-object.har", "log.entries: expected an array, found object"),
        ("08-version-number.har", "log.version: expected a string, found number"),
        ("09-entry-not-object.har", "entry 1: expected an object, found number (entry at line 3)"),
        ("10-missing-started.har", "entry 2: startedDateTime: missing (entry at line 4)"),
        ("11-started-not-date.har",
         "entry 0: startedDateTime: expected an ISO 8601 date and time with a time zone, found \"yesterday\" (entry at line 2)"),
        ("12-started-no-zone.har",
         "entry 0: startedDateTime: expected an ISO 8601 date and time with a time zone, found \"2025-03-14T09:26:53.589\" (entry at line 2)"),
        ("13-missing-request.har", "entry 0: request: missing (entry at line 2)"),
        ("14-method-number.har", "entry 0: request.method: expected a string, found number (entry at line 2)"),
        ("15-url-missing.har", "entry 0: request.url: missing (entry at line 2)"),
        ("16-headers-object.har", "entry 0: request.headers: expected an array, found object (entry at line 2)"),
        ("17-header-value-number.har",
         "entry 3: request.headers[1].value: expected a string, found number (entry at line 5)"),
        ("18-header-pair-three.har",
         "entry 0: response.headers[0]: expected a [name, value] pair, found an array of 3 elements (entry at line 2)"),
        ("19-status-string.har", "entry 0: response.status: expected a number, found string (entry at line 2)"),
        ("20-status-fraction.har", "entry 0: response.status: expected an integer, found 200.5 (entry at line 2)"),
        ("21-status-range.har",
         "entry 0: response.status: expected an HTTP status code (100-999, or 0 for no response), found 1200 (entry at line 2)"),
        ("22-missing-response.har", "entry 0: response: missing (entry at line 2)"),
        ("23-content-text-number.har",
         "entry 0: response.content.text: expected a string, found number (entry at line 2)"),
        ("24-bad-base64.har", "entry 0: response.content.text: is not valid base64 (entry at line 2)"),
        ("25-unknown-encoding.har",
         "entry 0: response.content.encoding: unsupported encoding \"gzip\" (expected \"base64\" or none) (entry at line 2)"),
        ("26-timing-string.har", "entry 0: timings.wait: expected a number, found string (entry at line 2)"),
        ("27-time-string.har", "entry 0: time: expected a number, found string (entry at line 2)"),
        ("28-param-without-name.har", "entry 0: request.postData.params[0].name: missing (entry at line 2)"),
        ("29-body-size-string.har", "entry 0: request.bodySize: expected a number, found string (entry at line 2)"),
        ("30-duplicate-id.har",
         "entry 1: _id: 6F9619FF-8B86-D011-B42D-00C04FC964FF is also the id of entry 0 (entry at line 3)"),
        ("31-bad-escape.har", "line 2, column 14: invalid escape '\\q' in a string"),
        ("32-control-character.har", "line 2, column 14: control character U+09 must be escaped in a string"),
        ("33-trailing-garbage.har", "line 2, column 1: unexpected '}' after the end of the JSON value"),
        ("34-empty-method.har", "entry 0: request.method: must not be empty (entry at line 2)"),
        ("35-cookies-string.har", "entry 0: request.cookies: expected an array, found string (entry at line 2)"),
        ("36-postdata-text-number.har",
         "entry 0: request.postData.text: expected a string, found number (entry at line 2)"),
    ]

    @Test func everyMalformedFixtureHasAnExpectation() throws {
        let directory = try Fixture.url("malformed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == Self.expectations.map(\.file).sorted())
        #expect(files.count >= 20)
    }

    @Test(arguments: expectations.map(\.file))
    func isRejectedWithAMessageNamingWhereAndWhat(file: String) throws {
        let expected = try #require(Self.expectations.first { $0.file == file }?.message)
        let data = try Fixture.data("malformed/" + file)
        do {
            let exchanges = try HAR.decode(data)
            Issue.record("\(file) was accepted with \(exchanges.count) exchanges")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func aProblemInALaterEntryStopsTheStreamThere() throws {
        // Entries 0-2 are fine and reach the consumer; entry 3 is not. A store must roll back, which
        // is why HARReader.read documents the transaction and HAR.decode returns nothing at all.
        let data = try Fixture.data("malformed/17-header-value-number.har")
        var delivered = 0
        #expect(throws: HARImportError.self) {
            try HARReader().read(data) { _ in delivered += 1 }
        }
        #expect(delivered == 3)
    }

    @Test func theErrorCarriesItsPartsForPrograms() throws {
        let data = try Fixture.data("malformed/17-header-value-number.har")
        do {
            _ = try HAR.decode(data)
            Issue.record("accepted")
        } catch {
            #expect(error.entryIndex == 3)
            #expect(error.field == "request.headers[1].value")
            #expect(error.line == 5)
            #expect(error.column == nil)
            #expect(error.reason == "expected a string, found number")
        }
    }

    @Test func hostileNestingIsRefusedNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let data = Data(#"{"log":{"entries":[{"x":"#.utf8) + Data(deep.utf8) + Data("}]}}".utf8)
        do {
            _ = try HAR.decode(data)
            Issue.record("accepted")
        } catch {
            #expect(error.reason == "nesting deeper than 256 levels")
            #expect(error.line == 1)
        }
    }
}

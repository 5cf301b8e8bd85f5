import Foundation
import NetTapCore
import NetTapTestSupport
import Testing

/// The async watchdog: passes results and errors through, and turns hangs into errors.
@Suite struct TimeoutTests {
    struct Expected: Error, Equatable {}

    @Test func passesTheResultThrough() async throws {
        #expect(try await withTimeout(seconds: 10) { 42 } == 42)
    }

    @Test func passesErrorsThrough() async {
        await #expect(throws: Expected()) { try await withTimeout(seconds: 10) { throw Expected() } }
    }

    @Test func hangThatIgnoresCancellationStillTimesOut() async throws {
        let parked = Protected<UnsafeContinuation<Void, Never>?>(nil)
        await #expect {
            try await withTimeout(seconds: 0.2, "the parked operation") {
                await withUnsafeContinuation { continuation in parked.withLock { $0 = continuation } }
            }
        } throws: { error in
            (error as? TimeoutError)?.description == "the parked operation did not finish within 0.2 s"
        }
        // Let the parked operation finish so nothing leaks past the test.
        parked.withLock { $0?.resume() }
    }
}

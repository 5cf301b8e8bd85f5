import Foundation
import NetTapCore
import NetTapServer

/// Starts an `HTTPServer` on 127.0.0.1 with `handler` and stops it when the fixture goes away.
final class ServerFixture: Sendable {
    let server: HTTPServer

    init(configuration: HTTPServer.Configuration = HTTPServer.Configuration(), handler: @escaping HTTPHandler) throws {
        server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
    }

    deinit {
        server.stop()
    }

    var port: Int { server.port }
}

/// A one-shot event a handler can raise and a test can wait for, with a bound.
final class Signal: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func raise() {
        semaphore.signal()
    }

    /// True if the signal was raised within `seconds`.
    func wait(seconds: Double) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

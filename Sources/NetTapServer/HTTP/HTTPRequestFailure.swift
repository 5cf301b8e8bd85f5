/// Why a request could not be read: the status to answer with and a message naming the problem.
/// The connection is closed after the answer, because its framing can no longer be trusted.
struct HTTPRequestFailure: Error, Equatable {
    var status: Int
    var message: String

    static func badRequest(_ message: String) -> HTTPRequestFailure {
        HTTPRequestFailure(status: 400, message: message)
    }
}

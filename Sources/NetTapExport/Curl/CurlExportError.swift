import Foundation

/// A request body that could not be written next to a cURL command.
public struct CurlExportError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot write request body to \(path): \(reason)" }
    public var errorDescription: String? { description }
}

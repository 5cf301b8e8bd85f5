import Foundation

/// One redirect the request followed (or was refused): the response that redirected and where to.
public struct RedirectHop: Sendable, Hashable, Codable {
    /// The URL that answered with a redirect.
    public var url: String
    /// The redirect status, when the capture path could see it (Linux's URLProtocol path cannot).
    public var statusCode: Int?
    /// The URL the redirect pointed to.
    public var location: String
    /// False when the app's delegate refused to follow it.
    public var followed: Bool

    public init(url: String, statusCode: Int?, location: String, followed: Bool = true) {
        self.url = url
        self.statusCode = statusCode
        self.location = location
        self.followed = followed
    }
}

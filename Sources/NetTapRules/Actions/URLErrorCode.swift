/// A URL loading error code (NSURLErrorDomain) that a rule makes a request fail with, by name or number.
///
/// ```swift
/// URLErrorCode(name: "timedOut")?.code // -1001
/// ```
/// The capture layer turns it into `URLError(URLError.Code(rawValue: code))`.
public struct URLErrorCode: Sendable, Hashable, CustomStringConvertible {
    public let code: Int
    /// The `URLError.Code` case name when the code is a known one.
    public let name: String?

    public init(code: Int) {
        self.code = code
        self.name = Self.names.first { $0.code == code }?.name
    }

    /// The code for a `URLError.Code` case name (`notConnectedToInternet`), compared exactly.
    public init?(name: String) {
        guard let entry = Self.names.first(where: { $0.name == name }) else { return nil }
        self.code = entry.code
        self.name = entry.name
    }

    public static let timedOut = URLErrorCode(code: -1001)
    public static let networkConnectionLost = URLErrorCode(code: -1005)
    public static let notConnectedToInternet = URLErrorCode(code: -1009)

    public var description: String {
        name.map { "\($0) (\(code))" } ?? String(code)
    }

    /// The NSURLErrorDomain codes with their `URLError.Code` names (values from Foundation's NSURLError.h).
    public static let names: [(name: String, code: Int)] = [
        ("unknown", -1), ("cancelled", -999), ("badURL", -1000), ("timedOut", -1001),
        ("unsupportedURL", -1002), ("cannotFindHost", -1003), ("cannotConnectToHost", -1004),
        ("networkConnectionLost", -1005), ("dnsLookupFailed", -1006), ("httpTooManyRedirects", -1007),
        ("resourceUnavailable", -1008), ("notConnectedToInternet", -1009),
        ("redirectToNonExistentLocation", -1010), ("badServerResponse", -1011),
        ("userCancelledAuthentication", -1012), ("userAuthenticationRequired", -1013),
        ("zeroByteResource", -1014), ("cannotDecodeRawData", -1015), ("cannotDecodeContentData", -1016),
        ("cannotParseResponse", -1017), ("internationalRoamingOff", -1018), ("callIsActive", -1019),
        ("dataNotAllowed", -1020), ("requestBodyStreamExhausted", -1021),
        ("appTransportSecurityRequiresSecureConnection", -1022), ("secureConnectionFailed", -1200),
        ("serverCertificateHasBadDate", -1201), ("serverCertificateUntrusted", -1202),
        ("serverCertificateHasUnknownRoot", -1203), ("serverCertificateNotYetValid", -1204),
        ("clientCertificateRejected", -1205), ("clientCertificateRequired", -1206),
        ("cannotLoadFromNetwork", -2000),
    ]
}

import Foundation

/// Why an exchange ended without a response, in words that analysis can group by.
public enum ErrorCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request or resource timed out.
    case timeout
    /// The host name did not resolve.
    case dns
    /// No connection could be made (refused, unreachable, offline).
    case connect
    /// TLS failed: handshake, certificate, trust.
    case tls
    /// The app (or the user) cancelled the request.
    case cancelled
    /// A connection was made but no valid HTTP response came back (dropped, malformed).
    case httpNone = "http-none"
    /// NetTap rules blocked the request on purpose.
    case blocked
    /// Anything else.
    case other
}

/// The error an exchange ended with: its category plus the platform's own domain, code and message.
public struct CaptureError: Sendable, Hashable, Codable {
    public var category: ErrorCategory
    public var domain: String
    public var code: Int
    public var message: String

    public init(category: ErrorCategory, domain: String, code: Int, message: String) {
        self.category = category
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Classifies a platform error. Reads the message too, because on Linux a certificate failure
    /// arrives as NSURLErrorDomain -1 with "SSL certificate problem: ..." (linux-urlsession-facts.md, fact 7).
    public init(_ error: Error) {
        let nsError = error as NSError
        self.init(
            category: ErrorCategory.classify(domain: nsError.domain, code: nsError.code, message: nsError.localizedDescription),
            domain: nsError.domain, code: nsError.code, message: nsError.localizedDescription)
    }
}

extension ErrorCategory {
    /// The category of an error given by domain, code and message.
    public static func classify(domain: String, code: Int, message: String) -> ErrorCategory {
        let lowered = message.lowercased()
        switch domain {
        case "NSURLErrorDomain":
            switch code {
            case -999: return .cancelled
            case -1001: return .timeout
            case -1003, -1006: return .dns
            case -1004, -1009, -1018, -1019, -1020: return .connect
            case -1206 ... -1200: return .tls
            case -1005, -1011, -1014, -1017: return .httpNone
            default: return classify(message: lowered)
            }
        case "NSCocoaErrorDomain" where code == 3072:
            return .cancelled
        case "NSPOSIXErrorDomain":
            switch code {
            case 60, 110: return .timeout  // ETIMEDOUT on Darwin, Linux
            case 61, 111, 51, 101, 65, 113: return .connect  // ECONNREFUSED, ENETUNREACH, EHOSTUNREACH
            default: return classify(message: lowered)
            }
        case "NetTap.Blocked":
            return .blocked
        default:
            return classify(message: lowered)
        }
    }

    private static func classify(message: String) -> ErrorCategory {
        if message.contains("ssl") || message.contains("certificate") || message.contains("tls") { return .tls }
        if message.contains("timed out") || message.contains("timeout") { return .timeout }
        if message.contains("resolve host") || message.contains("name or service") { return .dns }
        if message.contains("connection refused") || message.contains("couldn't connect")
            || message.contains("could not connect")
        {
            return .connect
        }
        if message.contains("empty reply") || message.contains("connection lost") { return .httpNone }
        return .other
    }
}

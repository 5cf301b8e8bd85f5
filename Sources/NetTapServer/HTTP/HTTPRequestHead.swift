import NetTapCore

/// The request line and header fields of one request, validated, with the framing facts the
/// connection needs (body length or chunked, Expect, Connection) pulled out while parsing.
struct HTTPRequestHead: Equatable {
    enum BodyFraming: Equatable {
        case none
        case length(Int)
        case chunked
    }

    var method: String
    var target: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    var expectsContinue: Bool

    /// Parses a head: everything up to, not including, the empty line. Lines end in LF with an
    /// optional CR before it. Throws a failure naming the line at fault.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPServer.Limits) throws(HTTPRequestFailure) -> HTTPRequestHead {
        var lines: [Range<Int>] = []
        var lineStart = 0
        for index in 0..<bytes.count where bytes[index] == lf {
            let end = index > lineStart && bytes[index - 1] == cr ? index - 1 : index
            lines.append(lineStart..<end)
            lineStart = index + 1
        }
        if lineStart < bytes.count {
            var end = bytes.count
            if bytes[end - 1] == cr { end -= 1 }
            lines.append(lineStart..<end)
        }
        guard let requestLine = lines.first else { throw .badRequest("empty request") }

        let (method, target, version) = try parseRequestLine(bytes, requestLine)
        if lines.count - 1 > limits.maxHeaderCount {
            throw HTTPRequestFailure(status: 431, message: "too many header fields: \(lines.count - 1), limit \(limits.maxHeaderCount)")
        }

        var fields: [HTTPHeaderField] = []
        fields.reserveCapacity(lines.count - 1)
        var contentLength: Int?
        var transferCodings: [String] = []
        var expectsContinue = false
        for (offset, range) in lines.dropFirst().enumerated() {
            let lineNumber = offset + 2
            guard !range.isEmpty else { throw .badRequest("empty header line \(lineNumber)") }
            if bytes[range.lowerBound] == space || bytes[range.lowerBound] == tab {
                throw .badRequest("header line \(lineNumber): obsolete line folding is not accepted")
            }
            guard let colon = (range.lowerBound..<range.upperBound).first(where: { bytes[$0] == colonByte }) else {
                throw .badRequest("header line \(lineNumber): missing ':'")
            }
            guard colon > range.lowerBound else { throw .badRequest("header line \(lineNumber): empty field name") }
            for index in range.lowerBound..<colon where !isTokenByte(bytes[index]) {
                throw .badRequest("header line \(lineNumber): invalid character in field name")
            }
            var valueStart = colon + 1
            var valueEnd = range.upperBound
            while valueStart < valueEnd, bytes[valueStart] == space || bytes[valueStart] == tab { valueStart += 1 }
            while valueEnd > valueStart, bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == tab { valueEnd -= 1 }
            for index in valueStart..<valueEnd {
                let byte = bytes[index]
                if (byte < 0x20 && byte != tab) || byte == 0x7F {
                    throw .badRequest("header line \(lineNumber): control character in field value")
                }
            }
            let name = text(bytes, range.lowerBound..<colon)
            let value = text(bytes, valueStart..<valueEnd)
            fields.append(HTTPHeaderField(name: name, value: value))

            if equalsIgnoringCase(bytes, range.lowerBound..<colon, "content-length") {
                for item in value.split(separator: ",") {
                    let digits = item.trimmingCharacters(in: [" ", "\t"])
                    guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                        throw .badRequest("header line \(lineNumber): Content-Length '\(value)' is not a number")
                    }
                    guard digits.utf8.count <= 18, let length = Int(digits) else {
                        throw HTTPRequestFailure(status: 413, message: "Content-Length \(digits) exceeds the body limit of \(limits.maxBodyBytes) bytes")
                    }
                    if let contentLength, contentLength != length {
                        throw .badRequest("conflicting Content-Length values \(contentLength) and \(length)")
                    }
                    contentLength = length
                }
            } else if equalsIgnoringCase(bytes, range.lowerBound..<colon, "transfer-encoding") {
                transferCodings += value.split(separator: ",").map { $0.trimmingCharacters(in: [" ", "\t"]).lowercased() }
            } else if equalsIgnoringCase(bytes, range.lowerBound..<colon, "expect") {
                guard value.lowercased() == "100-continue" else {
                    throw HTTPRequestFailure(status: 417, message: "unsupported expectation '\(value)'")
                }
                expectsContinue = true
            }
        }

        var framing = BodyFraming.none
        if !transferCodings.isEmpty {
            // Both framings at once is the classic request-smuggling shape: refuse it.
            guard contentLength == nil else { throw .badRequest("both Transfer-Encoding and Content-Length are present") }
            guard transferCodings.last == "chunked" else {
                throw .badRequest("Transfer-Encoding '\(transferCodings.joined(separator: ", "))' does not end in chunked")
            }
            guard transferCodings.count == 1 else {
                throw HTTPRequestFailure(status: 501, message: "Transfer-Encoding '\(transferCodings.joined(separator: ", "))' is not supported, only chunked")
            }
            framing = .chunked
        } else if let contentLength {
            if contentLength > limits.maxBodyBytes {
                throw HTTPRequestFailure(status: 413, message: "Content-Length \(contentLength) exceeds the body limit of \(limits.maxBodyBytes) bytes")
            }
            framing = contentLength > 0 ? .length(contentLength) : .none
        }
        return HTTPRequestHead(method: method, target: target, version: version, headers: HTTPHeaders(fields),
                               framing: framing, expectsContinue: expectsContinue && version == .http1_1)
    }

    private static func parseRequestLine(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(HTTPRequestFailure) -> (String, String, HTTPVersion) {
        let spaces = (range.lowerBound..<range.upperBound).filter { bytes[$0] == space }
        guard spaces.count == 2 else {
            throw .badRequest("malformed request line: expected 'METHOD SP TARGET SP VERSION'")
        }
        let methodRange = range.lowerBound..<spaces[0]
        let targetRange = (spaces[0] + 1)..<spaces[1]
        let versionRange = (spaces[1] + 1)..<range.upperBound
        guard !methodRange.isEmpty, methodRange.allSatisfy({ isTokenByte(bytes[$0]) }) else {
            throw .badRequest("malformed request line: invalid method")
        }
        guard !targetRange.isEmpty, targetRange.allSatisfy({ bytes[$0] > 0x20 && bytes[$0] != 0x7F }) else {
            throw .badRequest("malformed request line: invalid request target")
        }
        // "HTTP/" DIGIT "." DIGIT
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard versionRange.count == 8,
              (0..<5).allSatisfy({ bytes[versionRange.lowerBound + $0] == prefix[$0] }),
              isDigit(bytes[versionRange.lowerBound + 5]), bytes[versionRange.lowerBound + 6] == UInt8(ascii: "."),
              isDigit(bytes[versionRange.lowerBound + 7]) else {
            throw .badRequest("malformed request line: invalid HTTP version '\(text(bytes, versionRange))'")
        }
        let version = HTTPVersion(major: Int(bytes[versionRange.lowerBound + 5] - 0x30),
                                  minor: Int(bytes[versionRange.lowerBound + 7] - 0x30))
        guard version.major == 1 else {
            throw HTTPRequestFailure(status: 505, message: "\(version) is not supported, only HTTP/1.0 and HTTP/1.1")
        }
        return (text(bytes, methodRange), text(bytes, targetRange), version)
    }

    /// UTF-8 when valid, otherwise each byte as a Latin-1 character, so nothing is lost or replaced.
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if let string = String(validating: slice, as: UTF8.self) { return string }
        return String(String.UnicodeScalarView(slice.map { Unicode.Scalar($0) }))
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] | 0x20 != expected[offset] {
            return false
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// RFC 9110 tchar: visible ASCII except delimiters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenTable[Int(byte)]
    }

    private static let tokenTable: [Bool] = (0..<256).map { value in
        guard value > 0x20 && value < 0x7F else { return false }
        return !"\"(),/:;<=>?@[\\]{}".utf8.contains(UInt8(value))
    }
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let colonByte = UInt8(ascii: ":")

import Foundation
import NetTapCore

/// Turns one parsed HAR entry into an exchange: strict on what HAR 1.2 requires, tolerant of what
/// real tools add, omit or spell differently (see docs/export-formats.md, "Import").
enum HAREntryDecoder {
    typealias Failure = JSONField.Failure

    static func decode(_ entryField: JSONField, options: HARReader.Options) throws(Failure) -> Exchange {
        let entry = try entryField.object()
        _ = try entry["pageref"].optionalString()
        let startField = entry["startedDateTime"]
        let startText = try startField.string()
        guard let start = ISOTimestamp.parse(startText) else {
            throw startField.fail("expected an ISO 8601 date and time with a time zone, found \"\(startText)\"")
        }

        let request = try decodeRequest(entry["request"].object())
        let response = try decodeResponse(entry["response"].object())
        _ = try entry["cache"].optionalObject()
        let timings = try entry["timings"].optionalObject().map(decodeTimings)
        let time = try entry["time"].optionalNumber()
        let serverAddress = try entry["serverIPAddress"].optionalString().map(stripBrackets)
        _ = try entry["connection"].optionalString()

        var exchange = Exchange(
            id: custom(entry["_id"]).flatMap(UUID.init(uuidString:)) ?? .timeOrdered(at: ISOTimestamp.date(micros: start)),
            sessionID: custom(entry["_sessionId"]) ?? options.sessionID,
            startedAt: ISOTimestamp.date(micros: start),
            request: request,
            response: response.response,
            capturePath: custom(entry["_capturePath"]).flatMap(CapturePath.init(rawValue:)) ?? .imported,
            taskKind: custom(entry["_taskKind"]).flatMap(TaskKind.init(rawValue:)) ?? .data)

        if entry["_durationUnknown"].value != .bool(true) {
            if let time, time >= 0 {
                exchange.duration = Double(HARTimings.micros(milliseconds: time)) / 1_000_000
            } else if let timings {
                exchange.duration = Double(timings.total) / 1_000_000
            }
        }
        if entry.has("_metrics") {
            exchange.metrics = decodeMetrics(entry["_metrics"])
        } else if let timings {
            exchange.metrics = timings.metrics(start: start, remoteAddress: serverAddress)
        } else if let serverAddress {
            exchange.metrics = TimingMetrics(remoteAddress: serverAddress)
        }
        exchange.error = decodeError(entry["_error"]) ?? response.browserError
        exchange.labels = decodeLabels(entry["_labels"])
        exchange.redirects = decodeRedirects(entry["_redirects"])
        exchange.modifications = decodeModifications(entry["_modifications"])
        return exchange
    }

    // MARK: Request

    private static func decodeRequest(_ request: JSONObject) throws(Failure) -> CapturedRequest {
        let methodField = request["method"]
        let method = try methodField.string()
        guard !method.isEmpty else { throw methodField.fail("must not be empty") }
        let urlField = request["url"]
        let url = try urlField.string()
        guard !url.isEmpty else { throw urlField.fail("must not be empty") }
        _ = try request["httpVersion"].optionalString()
        _ = try request["cookies"].optionalArray()
        _ = try request["queryString"].optionalArray()
        _ = try request["headersSize"].optionalInteger()
        let headers = try decodeHeaders(request["headers"])
        let bodySize = try request["bodySize"].optionalInteger()

        var body: CapturedBody?
        if let postData = try request["postData"].optionalObject() {
            let mimeType = try postData["mimeType"].optionalString()
            var data: Data?
            if let text = try postData["text"].optionalString() {
                let encodingField = postData.has("_encoding") ? postData["_encoding"] : postData["encoding"]
                data = try decodeText(text, encoding: encodingField, textPath: postData["text"])
            } else {
                let params = try postData["params"].optionalArray()
                if !params.isEmpty { data = try formBody(params) }
            }
            body = makeBody(data: data, size: bodySize, contentType: mimeType, flags: request)
        } else if custom(request["_bodyUnavailable"]) != nil || (bodySize ?? 0) > 0 {
            body = makeBody(data: nil, size: bodySize, contentType: nil, flags: request)
        }
        return CapturedRequest(method: method, url: url, headers: headers, body: body)
    }

    /// `postData.params` as an `application/x-www-form-urlencoded` body, for tools that write
    /// params without text.
    private static func formBody(_ params: [JSONField]) throws(Failure) -> Data {
        var pairs: [String] = []
        for param in params {
            let object = try param.object()
            let name = try object["name"].string()
            let value = try object["value"].optionalString() ?? ""
            _ = try object["fileName"].optionalString()
            _ = try object["contentType"].optionalString()
            pairs.append(formEncode(name) + "=" + formEncode(value))
        }
        return Data(pairs.joined(separator: "&").utf8)
    }

    /// Percent-encodes all but ASCII letters, digits and "-._~" (CharacterSet.alphanumerics would
    /// let non-ASCII letters through unencoded).
    private static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: formSafe) ?? text
    }

    private static let formSafe = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    // MARK: Response

    private struct DecodedResponse {
        var response: CapturedResponse?
        /// Chrome's `response._error` ("net::ERR_CONNECTION_REFUSED") for requests that failed.
        var browserError: CaptureError?
    }

    private static func decodeResponse(_ response: JSONObject) throws(Failure) -> DecodedResponse {
        let statusField = response["status"]
        let status = try statusField.integer()
        guard status == 0 || (100...999).contains(status) else {
            throw statusField.fail("expected an HTTP status code (100-999, or 0 for no response), found \(status)")
        }
        _ = try response["statusText"].optionalString()
        let httpVersion = try response["httpVersion"].optionalString()
        _ = try response["cookies"].optionalArray()
        _ = try response["redirectURL"].optionalString()
        _ = try response["headersSize"].optionalInteger()
        _ = try response["bodySize"].optionalInteger()
        let headers = try decodeHeaders(response["headers"])

        var body: CapturedBody?
        if let content = try response["content"].optionalObject() {
            let size = try content["size"].optionalInteger()
            _ = try content["compression"].optionalInteger()
            let mimeType = try content["mimeType"].optionalString()
            if let text = try content["text"].optionalString() {
                let data = try decodeText(text, encoding: content["encoding"], textPath: content["text"])
                body = makeBody(data: data, size: size, contentType: mimeType, flags: response)
            } else if custom(response["_bodyUnavailable"]) != nil || (size ?? 0) > 0 {
                body = makeBody(data: nil, size: size, contentType: mimeType, flags: response)
            }
        }

        var decoded = DecodedResponse()
        if let message = custom(response["_error"]), !message.isEmpty {
            decoded.browserError = CaptureError(
                category: browserErrorCategory(message), domain: "HAR", code: 0, message: message)
        }
        guard status != 0 else { return decoded }
        decoded.response = CapturedResponse(
            statusCode: Int(status), headers: headers, body: body,
            httpVersion: httpVersion.flatMap { $0.isEmpty ? nil : $0 },
            url: custom(response["_url"]))
        return decoded
    }

    // MARK: Parts

    /// Header lists as HAR writes them (`{"name", "value"}` objects) or as some mitmproxy versions
    /// did (`[name, value]` pairs). A missing list is empty.
    private static func decodeHeaders(_ field: JSONField) throws(Failure) -> HTTPHeaders {
        var fields: [HTTPHeaderField] = []
        for element in try field.optionalArray() {
            switch element.value {
            case .array(let pair)?:
                guard pair.count == 2 else {
                    throw element.fail("expected a [name, value] pair, found an array of \(pair.count) elements")
                }
                guard case .string(let name) = pair[0], case .string(let value) = pair[1] else {
                    let path = element.path
                    _ = try JSONField.element(pair[0], of: path, index: 0).string()
                    _ = try JSONField.element(pair[1], of: path, index: 1).string()
                    continue
                }
                fields.append(HTTPHeaderField(name: name, value: value))
            case .object(let members)?:
                // The common case without building a path; on a problem, the checked way names it.
                guard case .string(let name)? = members["name"], case .string(let value)? = members["value"] else {
                    let object = try element.object()
                    _ = try object["name"].string()
                    _ = try object["value"].string()
                    continue
                }
                fields.append(HTTPHeaderField(name: name, value: value))
            default:
                throw element.fail(
                    "expected an object with \"name\" and \"value\", found \(element.value?.kindDescription ?? "nothing")")
            }
        }
        return HTTPHeaders(fields)
    }

    /// Body text in the encoding the entry names: none (the text itself, as UTF-8) or base64.
    private static func decodeText(_ text: String, encoding: JSONField, textPath: JSONField) throws(Failure) -> Data {
        switch try encoding.optionalString()?.lowercased() {
        case nil, "", "utf8", "utf-8":
            return Data(text.utf8)
        case "base64":
            // Some writers wrap base64 in lines; most do not, and filtering Characters is slow.
            var compact = text.utf8.contains(where: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
                ? text.filter { !$0.isWhitespace } : text
            // Some writers drop the padding; base64 without it is still unambiguous.
            if compact.count % 4 != 0 { compact += String(repeating: "=", count: 4 - compact.count % 4) }
            guard let data = Data(base64Encoded: compact) else { throw textPath.fail("is not valid base64") }
            return data
        case let other?:
            throw encoding.fail("unsupported encoding \"\(other)\" (expected \"base64\" or none)")
        }
    }

    /// A body with NetTap's flags (`_bodyTruncated`, `_bodyRedacted`, `_bodyUnavailable`) when present.
    /// A body without text whose size is known is marked unavailable: the bytes were not in the file.
    private static func makeBody(data: Data?, size: Int64?, contentType: String?, flags: JSONObject) -> CapturedBody {
        var unavailable = custom(flags["_bodyUnavailable"])
        if data == nil, unavailable == nil {
            unavailable = "the HAR file does not contain the body"
        }
        return CapturedBody(
            data: data ?? Data(),
            size: size.flatMap { $0 >= 0 ? $0 : nil },
            contentType: contentType.flatMap { $0.isEmpty ? nil : $0 },
            isTruncated: flags["_bodyTruncated"].value == .bool(true),
            isRedacted: flags["_bodyRedacted"].value == .bool(true),
            unavailableReason: unavailable)
    }

    private static func decodeTimings(_ timings: JSONObject) throws(Failure) -> HARTimings {
        func phase(_ name: String, unknown: Int64) throws(Failure) -> Int64 {
            guard let milliseconds = try timings[name].optionalNumber(), milliseconds >= 0 else { return unknown }
            return HARTimings.micros(milliseconds: milliseconds)
        }
        return HARTimings(
            blocked: try phase("blocked", unknown: -1), dns: try phase("dns", unknown: -1),
            connect: try phase("connect", unknown: -1), send: try phase("send", unknown: 0),
            wait: try phase("wait", unknown: 0), receive: try phase("receive", unknown: 0),
            ssl: try phase("ssl", unknown: -1))
    }

    /// "[::1]" (as Chrome writes IPv6 addresses) becomes "::1".
    private static func stripBrackets(_ address: String) -> String {
        guard address.hasPrefix("["), let close = address.firstIndex(of: "]") else { return address }
        return String(address[address.index(after: address.startIndex)..<close])
    }

    // MARK: NetTap's own fields, read leniently: a value of the wrong type is ignored, not fatal,
    // because other tools may use the same names for their own purposes.

    private static func custom(_ field: JSONField) -> String? {
        if case .string(let text)? = field.value { return text }
        return nil
    }

    private static func customObject(_ value: JSONValue?) -> JSONMembers? {
        if case .object(let members)? = value { return members }
        return nil
    }

    private static func customArray(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let elements)? = value { return elements }
        return []
    }

    private static func customString(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    private static func customInt(_ value: JSONValue?) -> Int64? {
        if case .number(let number)? = value, number.rounded() == number, abs(number) < 9.0e15 { return Int64(number) }
        return nil
    }

    private static func decodeError(_ field: JSONField) -> CaptureError? {
        if let message = custom(field) {
            return CaptureError(category: browserErrorCategory(message), domain: "HAR", code: 0, message: message)
        }
        guard let members = customObject(field.value) else { return nil }
        let domain = customString(members["domain"]) ?? "HAR"
        let code = Int(customInt(members["code"]) ?? 0)
        let message = customString(members["message"]) ?? ""
        let category = customString(members["category"]).flatMap(ErrorCategory.init(rawValue:))
            ?? ErrorCategory.classify(domain: domain, code: code, message: message)
        return CaptureError(category: category, domain: domain, code: code, message: message)
    }

    /// Chrome's network error names ("net::ERR_NAME_NOT_RESOLVED") by category; anything else
    /// goes through NetTap's message classifier.
    static func browserErrorCategory(_ message: String) -> ErrorCategory {
        let upper = message.uppercased()
        if upper.contains("ERR_NAME_NOT_RESOLVED") || upper.contains("ERR_NAME_RESOLUTION_FAILED") { return .dns }
        if upper.contains("TIMED_OUT") { return .timeout }
        if upper.contains("ERR_CERT_") || upper.contains("ERR_SSL_") { return .tls }
        if upper.contains("ERR_ABORTED") { return .cancelled }
        if upper.contains("ERR_BLOCKED_BY_CLIENT") { return .blocked }
        if upper.contains("ERR_EMPTY_RESPONSE") || upper.contains("ERR_CONNECTION_CLOSED")
            || upper.contains("ERR_CONNECTION_RESET")
        {
            return .httpNone
        }
        if upper.contains("ERR_CONNECTION_REFUSED") || upper.contains("ERR_ADDRESS_UNREACHABLE")
            || upper.contains("ERR_INTERNET_DISCONNECTED") || upper.contains("ERR_CONNECTION_FAILED")
        {
            return .connect
        }
        return ErrorCategory.classify(domain: "HAR", code: 0, message: message)
    }

    private static func decodeLabels(_ field: JSONField) -> [String: String] {
        guard let members = customObject(field.value) else { return [:] }
        var labels: [String: String] = [:]
        for (key, value) in members.list {
            if case .string(let text) = value { labels[key] = text }
        }
        return labels
    }

    private static func decodeRedirects(_ field: JSONField) -> [RedirectHop] {
        customArray(field.value).compactMap { element in
            guard let hop = customObject(element), let url = customString(hop["url"]),
                  let location = customString(hop["location"])
            else { return nil }
            var followed = true
            if case .bool(let flag)? = hop["followed"] { followed = flag }
            // The status is absent where the capture path could not see it (Linux URLProtocol path).
            let status = customInt(hop["statusCode"]).map { Int($0) }
            return RedirectHop(url: url, statusCode: status, location: location, followed: followed)
        }
    }

    private static func decodeModifications(_ field: JSONField) -> [ExchangeModification] {
        customArray(field.value).compactMap { element in
            guard let modification = customObject(element), let rule = customString(modification["rule"]),
                  let action = customString(modification["action"])
            else { return nil }
            return ExchangeModification(rule: rule, action: action, detail: customString(modification["detail"]) ?? "")
        }
    }

    /// `_metrics` as NetTap writes it; null means the exchange had none.
    private static func decodeMetrics(_ field: JSONField) -> TimingMetrics? {
        guard let members = customObject(field.value) else { return nil }
        func instant(_ key: String) -> Date? {
            guard let text = customString(members[key]), let micros = ISOTimestamp.parse(text) else { return nil }
            return ISOTimestamp.date(micros: micros)
        }
        var metrics = TimingMetrics(
            fetchStart: instant("fetchStart"), domainLookupStart: instant("domainLookupStart"),
            domainLookupEnd: instant("domainLookupEnd"), connectStart: instant("connectStart"),
            connectEnd: instant("connectEnd"), secureConnectionStart: instant("secureConnectionStart"),
            secureConnectionEnd: instant("secureConnectionEnd"), requestStart: instant("requestStart"),
            requestEnd: instant("requestEnd"), responseStart: instant("responseStart"),
            responseEnd: instant("responseEnd"))
        metrics.remoteAddress = customString(members["remoteAddress"])
        metrics.remotePort = customInt(members["remotePort"]).map { Int($0) }
        if case .bool(let reused)? = members["isReusedConnection"] { metrics.isReusedConnection = reused }
        metrics.networkProtocol = customString(members["networkProtocol"])
        metrics.bytesSent = customInt(members["bytesSent"])
        metrics.bytesReceived = customInt(members["bytesReceived"])
        return metrics
    }
}

/// What NetTap hides before anything is stored, exported or uploaded.
///
/// Applied to every exchange before any sink sees it. The default hides credentials in headers
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) and the values of query items,
/// form fields, JSON fields and other headers whose names look like secrets (`token`, `access_token`,
/// `password`, `secret`, `api_key`, `sig`, `signature`, and names ending in them such as
/// `refreshToken` or `X-Api-Key`). Names are compared ignoring case, `-`, `_` and `.`.
///
/// ```swift
/// var policy = RedactionPolicy.default
/// policy.fieldNames.insert("ssn")
/// NetTap.shared.configuration.redaction = policy
/// ```
public struct RedactionPolicy: Sendable, Hashable {
    /// Header names whose values are always redacted (compared without case).
    public var headerNames: Set<String> {
        didSet { headerMatcher = FieldNameMatcher(names: headerNames, suffixes: [], normalizes: false) }
    }
    /// Field names (query, form, JSON, header) whose values are redacted, compared normalized.
    public var fieldNames: Set<String> {
        didSet { matcher = FieldNameMatcher(names: fieldNames, suffixes: fieldSuffixes) }
    }
    /// Normalized suffixes that make a field name sensitive (`"token"` covers `accessToken`).
    public var fieldSuffixes: Set<String> {
        didSet { matcher = FieldNameMatcher(names: fieldNames, suffixes: fieldSuffixes) }
    }
    /// What a redacted value becomes.
    public var replacement: String
    /// Whether JSON and form bodies are scanned for sensitive fields.
    public var redactsBodies: Bool
    /// `fieldNames` and `fieldSuffixes` as bytes, kept in step with them.
    private var matcher: FieldNameMatcher
    /// `headerNames` as bytes, kept in step with them.
    private var headerMatcher: FieldNameMatcher

    public init(
        headerNames: Set<String>, fieldNames: Set<String>, fieldSuffixes: Set<String> = [],
        replacement: String = "REDACTED", redactsBodies: Bool = true
    ) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.fieldNames = Set(fieldNames.map(Self.normalize))
        self.fieldSuffixes = Set(fieldSuffixes.map(Self.normalize))
        self.replacement = replacement
        self.redactsBodies = redactsBodies
        self.matcher = FieldNameMatcher(names: self.fieldNames, suffixes: self.fieldSuffixes)
        self.headerMatcher = FieldNameMatcher(names: self.headerNames, suffixes: [], normalizes: false)
    }

    /// The policy NetTap starts with.
    public static let `default` = RedactionPolicy(
        headerNames: ["authorization", "proxy-authorization", "cookie", "set-cookie"],
        fieldNames: [
            "token", "access_token", "refresh_token", "id_token", "password", "passwd", "secret",
            "client_secret", "api_key", "apikey", "sig", "signature",
        ],
        fieldSuffixes: ["token", "password", "secret", "api_key", "signature"]
    )

    /// Redacts nothing. For tests and for apps that redact themselves.
    public static let none = RedactionPolicy(headerNames: [], fieldNames: [], fieldSuffixes: [], redactsBodies: false)

    public var isEmpty: Bool {
        headerNames.isEmpty && fieldNames.isEmpty && fieldSuffixes.isEmpty
    }

    /// Whether a query, form or JSON field named `name` holds a secret.
    public func isSensitiveField(_ name: String) -> Bool {
        if let answer = matcher.match(name) { return answer }
        let normalized = Self.normalize(name)
        if normalized.isEmpty { return false }
        if fieldNames.contains(normalized) { return true }
        return fieldSuffixes.contains { normalized.hasSuffix($0) }
    }

    /// `isSensitiveField` for a name given as UTF-8 bytes (a JSON key as the body spells it),
    /// without making a String of it unless it is not printable ASCII.
    func isSensitiveField<Bytes: Collection<UInt8>>(utf8 name: Bytes) -> Bool {
        if let answer = matcher.match(utf8: name) { return answer }
        return isSensitiveField(String(decoding: name, as: UTF8.self))
    }

    /// Whether the value of header `name` is redacted.
    public func isSensitiveHeader(_ name: String) -> Bool {
        if let answer = FieldNameMatcher.matchHeader(name, listed: headerMatcher, fields: matcher) { return answer }
        let listed = headerMatcher.match(name) ?? headerNames.contains(name.lowercased())
        return listed || isSensitiveField(name)
    }

    /// `name` lowercased, without `-`, `_` and `.`. Runs for every header, query item and JSON key
    /// of every capture, so ASCII names (nearly all) are folded byte by byte in one pass.
    static func normalize(_ name: String) -> String {
        let utf8 = name.utf8
        guard !utf8.contains(where: { $0 >= 0x80 }) else {
            return String(name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != "." })
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count) { buffer in
            let count = foldASCII(utf8, into: buffer)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// The characters normalizing removes: `-`, `_` and `.`.
    @inline(__always)
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    /// Writes ASCII `utf8` lowercased and without `-`, `_` and `.` into `buffer` (at least as long),
    /// and returns how many bytes it wrote: `normalize` without the String. With
    /// `removingSeparators` false it only lowercases (`lowercased()` for ASCII).
    static func foldASCII<Bytes: Collection<UInt8>>(
        _ utf8: Bytes, into buffer: UnsafeMutableBufferPointer<UInt8>, removingSeparators: Bool = true
    ) -> Int {
        var count = 0
        for byte in utf8 {
            switch byte {
            case _ where isSeparator(byte):
                if removingSeparators { continue }
                buffer[count] = byte
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                buffer[count] = byte | 0x20
            default:
                buffer[count] = byte
            }
            count += 1
        }
        return count
    }
}

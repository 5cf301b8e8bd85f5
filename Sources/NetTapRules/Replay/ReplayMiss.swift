/// One way a live request differs from a recorded one.
public struct ReplayDifference: Sendable, Hashable, CustomStringConvertible {
    /// "method", "scheme", "host", "port", "path", "query item page", "header X-Env", "body".
    public var field: String
    /// The difference in words: `live "2", recorded "1"`.
    public var detail: String

    public init(field: String, detail: String) {
        self.field = field
        self.detail = detail
    }

    public var description: String { "\(field): \(detail)" }

    /// Values for a message: `absent`, `"1"`, `"a", "b"`.
    static func show(_ values: [String]) -> String {
        values.isEmpty ? "absent" : values.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

/// Why a replay found no entry for a request, with the closest recorded entry and how it differs.
public struct ReplayMiss: Error, Sendable, Hashable, CustomStringConvertible {
    /// The live request as matched (after redaction): `GET https://host/path?query`.
    public var request: String
    /// The index in the fixtures of the closest entry, if there are any.
    public var closestIndex: Int?
    /// The closest entry's request line.
    public var closestRequest: String?
    /// Field by field, how the live request differs from the closest entry (empty when it matched
    /// but every matching entry had been used).
    public var differences: [ReplayDifference]
    /// True when entries matched but all had been used and `reuseLast` is off.
    public var isExhausted: Bool

    public var description: String { message }

    /// The whole explanation, one difference per line.
    public var message: String {
        guard let closestIndex, let closestRequest else {
            return "no recorded entry matches \(request): the recording is empty"
        }
        if isExhausted {
            return "every recorded entry matching \(request) has been used (last: entry #\(closestIndex)); "
                + "set reuseLast to keep answering with the last one"
        }
        var lines = ["no recorded entry matches \(request)", "closest: entry #\(closestIndex) \(closestRequest)"]
        lines += differences.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}

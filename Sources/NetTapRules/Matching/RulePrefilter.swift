/// A rule's cheapest conditions as plain bits and integers, checked in a tight loop before the
/// full match: method, scheme, number of path segments, the first path segment, and the query
/// item and header names the rule needs present (as 64-bit Bloom masks of their name hashes).
///
/// It never rejects a request the full match would accept (unknown methods and schemes share an
/// "other" bit and are then compared in full), so it only saves work. Being trivially copyable,
/// an array of these is scanned without reference counting.
struct RulePrefilter: Sendable {
    private var methodMask: UInt32 = .max
    private var schemeMask: UInt8 = .max
    private var minSegments = 0
    private var maxSegments = Int.max
    /// Hash of the first path segment when the pattern starts with a literal one; 0 otherwise.
    private var firstSegmentHash: UInt64 = 0
    /// One bit per query item name the rule needs present (every matcher but `.absent`).
    private var requiredQueryNames: UInt64 = 0
    /// The same for (lowercased) header names.
    private var requiredHeaderNames: UInt64 = 0

    init(_ match: RuleMatch) {
        for item in match.queryItems where item.matcher != .absent {
            requiredQueryNames |= Self.bloomBit(Self.hash(Substring(item.name)))
        }
        for header in match.headers where header.matcher != .absent {
            requiredHeaderNames |= Self.bloomBit(Self.hash(Substring(header.lowercasedName)))
        }
        if !match.methods.isEmpty {
            methodMask = match.methods.reduce(0) { $0 | Self.methodBit($1) }
        }
        if !match.schemes.isEmpty {
            schemeMask = match.schemes.reduce(0) { $0 | Self.schemeBit($1) }
        }
        if case .glob(let glob) = match.path {
            minSegments = glob.segments.count
            maxSegments = glob.matchesAnySuffix ? Int.max : glob.segments.count
            if case .literal(let first, _) = glob.segments.first {
                firstSegmentHash = Self.hash(Substring(first))
            }
        }
    }

    /// False when the rule cannot match `request`.
    @inline(__always)
    func admits(_ request: RuleRequest) -> Bool {
        let storage = request.storage
        return methodMask & storage.methodBit != 0
            && schemeMask & storage.schemeBit != 0
            && storage.segmentRanges.count >= minSegments
            && storage.segmentRanges.count <= maxSegments
            && (firstSegmentHash == 0 || firstSegmentHash == storage.firstSegmentHash)
            && requiredQueryNames & ~storage.queryNameBloom == 0
            && requiredHeaderNames & ~storage.headerNameBloom == 0
    }

    /// The bit that every method outside the known ones shares.
    static let otherMethodBit: UInt32 = 1 << 31
    /// The bit that every scheme outside the known ones shares.
    static let otherSchemeBit: UInt8 = 1 << 7

    static func methodBit(_ method: String) -> UInt32 {
        switch method {
        case "GET": return 1 << 0
        case "HEAD": return 1 << 1
        case "POST": return 1 << 2
        case "PUT": return 1 << 3
        case "PATCH": return 1 << 4
        case "DELETE": return 1 << 5
        case "OPTIONS": return 1 << 6
        case "TRACE": return 1 << 7
        case "CONNECT": return 1 << 8
        default: return 1 << 31
        }
    }

    static func schemeBit(_ scheme: String) -> UInt8 {
        switch scheme {
        case "http": return 1 << 0
        case "https": return 1 << 1
        case "ws": return 1 << 2
        case "wss": return 1 << 3
        default: return 1 << 7
        }
    }

    /// The Bloom mask bit of a name hash.
    static func bloomBit(_ hash: UInt64) -> UInt64 {
        1 << (hash >> 58)
    }

    /// FNV-1a over the bytes, never 0 (0 means "any first segment").
    static func hash(_ text: Substring) -> UInt64 {
        hash(bytes: text.utf8)
    }

    static func hash<Bytes: Sequence<UInt8>>(bytes: Bytes) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return value == 0 ? 1 : value
    }
}

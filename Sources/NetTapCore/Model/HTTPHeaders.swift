import Foundation

/// One header field as it travelled: the name keeps its spelling, comparisons ignore case.
public struct HTTPHeaderField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Ordered header fields with case-insensitive lookup.
///
/// Order and repeated fields are kept (two `Set-Cookie` lines stay two fields), because a capture
/// must show what was on the wire, and HAR and cURL export need the original order.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json"]
/// headers.add(name: "Accept", value: "*/*")
/// headers["content-type"] // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable, Codable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeaderField]

    public init(_ fields: [HTTPHeaderField] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    /// Builds ordered fields from a Foundation dictionary (`allHTTPHeaderFields`, `allHeaderFields`),
    /// sorted by name so that the result does not depend on dictionary order.
    public init(_ dictionary: [String: String]) {
        self.init(sortingByName: dictionary.map { HTTPHeaderField(name: $0.key, value: $0.value) })
    }

    /// Fields in the order of their names compared without case (what `init(_:)` gives a dictionary).
    /// Every capture sorts its response headers, so ASCII names (nearly all) are compared as folded
    /// bytes instead of being lowercased into new Strings first.
    public init(sortingByName fields: consuming [HTTPHeaderField]) {
        guard fields.allSatisfy({ Self.isASCII($0.name) }) else {
            // Another character can combine with its neighbour or change length when lowercased.
            self.fields = fields
                .map { (folded: $0.name.lowercased(), field: $0) }
                .sorted { $0.folded < $1.folded }
                .map(\.field)
            return
        }
        // Consumed, so that the array is sorted in place rather than copied first.
        var sorted = consume fields
        Self.sortByFoldedName(&sorted)
        self.fields = sorted
    }

    /// ASCII-named fields in the order of their lowercased names, sorted by their folded names copied
    /// once into one byte buffer. Sorting the fields themselves retains and releases two Strings
    /// for every move and every comparison, about 200 reference-count operations for a typical
    /// response's headers; this sorts plain integers, then moves each field once into its place.
    /// The scratch space is a temporary allocation (on the stack for a typical response), not three
    /// arrays on the heap: every capture of a response runs this.
    private static func sortByFoldedName(_ fields: inout [HTTPHeaderField]) {
        guard fields.count > 1 else { return }
        let count = fields.count
        let byteCount = fields.reduce(0) { $0 + $1.name.utf8.count }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(1, byteCount)) { folded in
            // Per field: where its name starts in `folded`, its length, and its place in the order.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count * 3) { scratch in
                var end = 0
                for (index, field) in fields.enumerated() {
                    scratch[index] = end
                    for byte in field.name.utf8 {
                        folded[end] = byte.asciiLowercased
                        end += 1
                    }
                    scratch[count + index] = end - scratch[index]
                    scratch[2 * count + index] = index
                }
                var order = UnsafeMutableBufferPointer(rebasing: scratch[(2 * count)...])
                // Stable, like the sort it replaces: equal names keep their order.
                order.sort { left, right in
                    let aStart = scratch[left], aCount = scratch[count + left]
                    let bStart = scratch[right], bCount = scratch[count + right]
                    for offset in 0..<Swift.min(aCount, bCount) {
                        let x = folded[aStart + offset]
                        let y = folded[bStart + offset]
                        if x != y { return x < y }
                    }
                    return aCount != bCount ? aCount < bCount : left < right
                }
                fields.permute(takingEach: UnsafeBufferPointer(order))
            }
        }
    }

    private static func isASCII(_ text: String) -> Bool {
        !text.utf8.contains { $0 >= 0x80 }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeaderField { fields[position] }

    /// The first value for `name`, compared without case.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether two field names (or other protocol tokens) are equal without case.
    ///
    /// Field names are ASCII tokens (RFC 9110, 5.1), so this folds ASCII letters byte by byte: it is
    /// on every capture's path, and Foundation's locale-aware comparison cost several times more.
    /// Names with other characters are compared by their lowercased forms.
    public static func namesEqual<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case (let x?, let y?):
                if x == y { continue }
                if x >= 0x80 || y >= 0x80 { return a.lowercased() == b.lowercased() }
                if x.asciiLowercased != y.asciiLowercased { return false }
            default:
                // Different lengths: equal only if lowercasing changes a length (non-ASCII text).
                if a.utf8.contains(where: { $0 >= 0x80 }) || b.utf8.contains(where: { $0 >= 0x80 }) {
                    return a.lowercased() == b.lowercased()
                }
                return false
            }
        }
    }

    @inline(__always)
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// Appends a field, keeping any field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeaderField(name: name, value: value))
    }

    /// Replaces every field named `name` by one field, in the position of the first one.
    public mutating func set(name: String, value: String) {
        if let first = fields.firstIndex(where: { Self.namesEqual($0.name, name) }) {
            fields[first].value = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if Self.namesEqual(fields[index].name, name) {
                    fields.remove(at: index)
                } else {
                    index += 1
                }
            }
        } else {
            add(name: name, value: value)
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// Rewrites values in place; `transform` returns nil to keep a field as it is.
    public mutating func transformValues(_ transform: (HTTPHeaderField) -> String?) {
        // Nothing is written until a value changes: a loop that may write makes the optimizer
        // make the array unique before it starts, which copied every field of shared headers.
        var index = fields.startIndex
        var firstChange: String?
        while index < fields.endIndex, firstChange == nil {
            firstChange = transform(fields[index])
            index += 1
        }
        guard let firstChange else { return }
        fields[index - 1].value = firstChange
        while index < fields.endIndex {
            if let replacement = transform(fields[index]) { fields[index].value = replacement }
            index += 1
        }
    }

    /// A dictionary view; repeated fields are joined with ", " as Foundation does.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let existingName = spelling[key], let existing = result[existingName] {
                result[existingName] = existing + ", " + field.value
            } else {
                spelling[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.fields = try container.decode([HTTPHeaderField].self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}

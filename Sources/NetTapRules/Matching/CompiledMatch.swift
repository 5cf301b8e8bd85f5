import Foundation
import NetTapCore

/// A `RuleMatch` laid out for the hot path: path literals as bytes, names as hashes, so that a
/// rule that does not match is rejected without reference counting or Unicode string comparison.
/// Built once per rule when a `RuleSet` is made.
final class CompiledMatch: Sendable {
    let prefilter: RulePrefilter
    // The match's parts as separate stored properties, so the hot path reads each one in place
    // rather than copying the whole `RuleMatch`.
    private let methods: [String]
    private let schemes: [String]
    private let hosts: [HostPattern]
    private let ports: [Int]
    private let glob: CompiledGlob?
    private let pathRegex: RuleRegex?
    private let queryNames: [String]
    private let queryNameHashes: [UInt64]
    private let queryMatchers: [ValueMatcher]
    private let headerNames: [String]
    private let headerNameHashes: [UInt64]
    private let headerMatchers: [ValueMatcher]

    init(_ match: RuleMatch) {
        prefilter = RulePrefilter(match)
        methods = match.methods
        schemes = match.schemes
        hosts = match.hosts
        ports = match.ports
        switch match.path {
        case .glob(let pattern):
            glob = CompiledGlob(pattern)
            pathRegex = nil
        case .regex(let regex):
            glob = nil
            pathRegex = regex
        case .none:
            glob = nil
            pathRegex = nil
        }
        queryNames = match.queryItems.map(\.name)
        queryNameHashes = match.queryItems.map { RulePrefilter.hash(Substring($0.name)) }
        queryMatchers = match.queryItems.map(\.matcher)
        headerNames = match.headers.map(\.lowercasedName)
        headerNameHashes = match.headers.map { RulePrefilter.hash(Substring($0.lowercasedName)) }
        headerMatchers = match.headers.map(\.matcher)
    }

    /// The full check, for a request the prefilter admitted.
    func matchesAfterPrefilter(_ request: RuleRequest) -> Bool {
        let storage = request.storage
        // Known methods and schemes have a bit each, so the prefilter already decided them.
        if storage.methodBit == RulePrefilter.otherMethodBit, !methods.isEmpty,
            !methods.contains(where: { Bytes.equal($0, storage.method) })
        {
            return false
        }
        if storage.schemeBit == RulePrefilter.otherSchemeBit, !schemes.isEmpty,
            !schemes.contains(where: { Bytes.equal($0, storage.scheme) })
        {
            return false
        }
        if !hosts.isEmpty, !hosts.contains(where: { $0.matches(storage.host) }) { return false }
        if !ports.isEmpty {
            guard let port = storage.port ?? RuleRequest.defaultPort(forScheme: storage.scheme), ports.contains(port)
            else { return false }
        }
        if let glob {
            if !glob.matches(storage.pathBytes, segments: storage.segmentRanges) { return false }
        } else if let pathRegex, !pathRegex.matches(storage.path) {
            return false
        }
        for index in queryNameHashes.indices where !matchesQueryItem(index, storage) { return false }
        for index in headerNameHashes.indices where !matchesHeader(index, storage) { return false }
        return true
    }

    private func matchesQueryItem(_ index: Int, _ storage: RuleRequest.Storage) -> Bool {
        let hash = queryNameHashes[index]
        var found = false
        for position in storage.queryNameHashes.indices where storage.queryNameHashes[position] == hash {
            guard Bytes.equal(storage.queryItems[position].name, queryNames[index]) else { continue }
            found = true
            if queryMatchers[index].accepts(storage.queryItems[position].value ?? "") {
                return queryMatchers[index].decide(found: true, accepted: true)
            }
        }
        return queryMatchers[index].decide(found: found, accepted: false)
    }

    private func matchesHeader(_ index: Int, _ storage: RuleRequest.Storage) -> Bool {
        let hash = headerNameHashes[index]
        var found = false
        for position in storage.headerNameHashes.indices where storage.headerNameHashes[position] == hash {
            guard Bytes.equal(storage.lowercasedHeaderNames[position], headerNames[index]) else { continue }
            found = true
            if headerMatchers[index].accepts(storage.headerValues[position]) {
                return headerMatchers[index].decide(found: true, accepted: true)
            }
        }
        return headerMatchers[index].decide(found: found, accepted: false)
    }
}

/// A `PathGlob` as byte ranges: literal segments compare with `memcmp`-like loops over the
/// request's path bytes, with no strings made or retained.
struct CompiledGlob: Sendable {
    private enum Kind: UInt8, Sendable {
        case literal, any, wildcard
    }

    private struct Segment: Sendable {
        var kind: Kind
        /// For literals: the bytes in `bytes`. For wildcards: the pieces in `pieces`.
        var range: Range<Int>
    }

    private let bytes: [UInt8]
    private let pieces: [Range<Int>]
    private let segments: [Segment]
    private let matchesAnySuffix: Bool

    init(_ glob: PathGlob) {
        var bytes: [UInt8] = []
        var pieces: [Range<Int>] = []
        var segments: [Segment] = []
        for segment in glob.segments {
            switch segment {
            case .literal(_, let literal):
                segments.append(Segment(kind: .literal, range: bytes.count..<(bytes.count + literal.count)))
                bytes += literal
            case .any:
                segments.append(Segment(kind: .any, range: 0..<0))
            case .wildcard(let parts):
                let first = pieces.count
                for part in parts {
                    pieces.append(bytes.count..<(bytes.count + part.utf8.count))
                    bytes += Array(part.utf8)
                }
                segments.append(Segment(kind: .wildcard, range: first..<pieces.count))
            }
        }
        self.bytes = bytes
        self.pieces = pieces
        self.segments = segments
        self.matchesAnySuffix = glob.matchesAnySuffix
    }

    func matches(_ path: [UInt8], segments ranges: [Range<Int>]) -> Bool {
        if matchesAnySuffix {
            guard ranges.count >= segments.count else { return false }
        } else {
            guard ranges.count == segments.count else { return false }
        }
        for index in segments.indices {
            let segment = segments[index]
            let actual = ranges[index]
            switch segment.kind {
            case .literal:
                guard actual.count == segment.range.count, equal(path, actual.lowerBound, segment.range) else { return false }
            case .any:
                if actual.isEmpty { return false }
            case .wildcard:
                if !matchesWildcard(path, actual, pieces: segment.range) { return false }
            }
        }
        return true
    }

    /// `a*b*c` within one segment: starts with the first piece, ends with the last, and holds the
    /// middle ones in order between them.
    private func matchesWildcard(_ path: [UInt8], _ actual: Range<Int>, pieces range: Range<Int>) -> Bool {
        guard let firstIndex = range.first, let lastIndex = range.last, range.count >= 2 else { return false }
        let first = pieces[firstIndex]
        let last = pieces[lastIndex]
        guard actual.count >= first.count + last.count else { return false }
        guard equal(path, actual.lowerBound, first), equal(path, actual.upperBound - last.count, last) else { return false }
        var cursor = actual.lowerBound + first.count
        let end = actual.upperBound - last.count
        for pieceIndex in range.dropFirst().dropLast() {
            let piece = pieces[pieceIndex]
            guard !piece.isEmpty else { continue }
            var found = false
            while cursor + piece.count <= end {
                if equal(path, cursor, piece) {
                    cursor += piece.count
                    found = true
                    break
                }
                cursor += 1
            }
            if !found { return false }
        }
        return true
    }

    /// Whether `path` holds the bytes of `piece` from `start` (the caller checked the bounds).
    private func equal(_ path: [UInt8], _ start: Int, _ piece: Range<Int>) -> Bool {
        guard !piece.isEmpty else { return true }
        return path.withUnsafeBufferPointer { pathBytes in
            bytes.withUnsafeBufferPointer { patternBytes in
                guard let left = pathBytes.baseAddress, let right = patternBytes.baseAddress else { return false }
                return memcmp(left + start, right + piece.lowerBound, piece.count) == 0
            }
        }
    }
}

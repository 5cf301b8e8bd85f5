import Foundation
import NetTapCore

/// Reads HAR files (NetTap's own and those of Chrome, Firefox, Charles, Proxyman, mitmproxy) into
/// exchanges, one entry at a time.
///
/// Entries are parsed and converted one by one, so the parsed form of a large file never sits in
/// memory; only the file's bytes do (map them with `Data(contentsOf:options: .alwaysMapped)`).
/// A file NetTap wrote comes back exactly: ids, session, labels, capture path, flags, raw timing.
/// Other files get new ids, `options.sessionID`, capture path `.imported`, and timing rebuilt
/// from `timings`.
///
/// ```swift
/// // All or nothing, in memory:
/// let exchanges = try HARReader().decode(contentsOf: url)
///
/// // Streaming, one entry at a time (an error thrown by `each` stops the read and passes through):
/// try HARReader(options: .init(sessionID: "import-1")).read(contentsOf: url) { exchange in
///     print(exchange.request.url)
/// }
/// ```
public struct HARReader: Sendable {
    /// How entries that are not NetTap's own are filled in.
    public struct Options: Sendable, Hashable {
        /// The session of entries without `_sessionId`.
        public var sessionID: String

        public init(sessionID: String = "har-import") {
            self.sessionID = sessionID
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Calls `each` with every entry in file order. Throws `HARImportError` at the first problem
    /// in the file, and rethrows what `each` throws. Because entries before the problem have
    /// already been handed over, callers that keep them must do so in a transaction they roll back
    /// on a throw (or use `decode`).
    public func read(_ data: Data, file: String? = nil, each: (Exchange) throws -> Void) throws {
        try withoutActuallyEscaping(each) { each in
            try data.withUnsafeBytes { bytes in
                var session = ReadSession(bytes: bytes, file: file, options: options, each: each)
                try session.readDocument()
            }
        }
    }

    /// `read(_:file:each:)` over a file, memory-mapped; errors name the file.
    public func read(contentsOf url: URL, each: (Exchange) throws -> Void) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw HARImportError(file: url.path, reason: "cannot read the file: \(error.localizedDescription)")
        }
        try read(data, file: url.path, each: each)
    }

    /// Every entry as an exchange, or the first problem; never a part of the file.
    public func decode(_ data: Data, file: String? = nil) throws(HARImportError) -> [Exchange] {
        var exchanges: [Exchange] = []
        do {
            try read(data, file: file) { exchanges.append($0) }
        } catch let error as HARImportError {
            throw error
        } catch {
            // `each` above cannot throw, so only HARImportError reaches here.
            throw HARImportError(file: file, reason: "\(error)")
        }
        return exchanges
    }

    /// `decode(_:file:)` over a file; errors name the file.
    public func decode(contentsOf url: URL) throws(HARImportError) -> [Exchange] {
        var exchanges: [Exchange] = []
        do {
            try read(contentsOf: url) { exchanges.append($0) }
        } catch let error as HARImportError {
            throw error
        } catch {
            throw HARImportError(file: url.path, reason: "\(error)")
        }
        return exchanges
    }
}

/// The state of one pass over a document: the parser, the entry count, the line of the current
/// entry and the ids seen (a repeated `_id` would collide in the store).
private struct ReadSession {
    var parser: JSONParser
    let file: String?
    let options: HARReader.Options
    let each: (Exchange) throws -> Void
    var entryIndex = 0
    var line = 1
    var lineCountedUpTo = 0
    var idsSeen: [UUID: Int] = [:]

    init(bytes: UnsafeRawBufferPointer, file: String?, options: HARReader.Options, each: @escaping (Exchange) throws -> Void) {
        self.parser = JSONParser(bytes: bytes)
        self.file = file
        self.options = options
        self.each = each
    }

    mutating func readDocument() throws {
        guard try syntax({ $0.peekValueStart() }) == UInt8(ascii: "{") else {
            let root = try syntax { try $0.parseValue() }
            throw HARImportError(
                file: file, reason: "expected an object with a \"log\" member at the top level, found \(root.kindDescription)")
        }
        try syntax { try $0.beginObject() }
        var sawLog = false
        while let key = try syntax({ try $0.nextMember() }) {
            guard key == "log" else {
                _ = try syntax { try $0.parseValue() }
                continue
            }
            guard !sawLog else { throw HARImportError(file: file, field: "log", reason: "appears more than once") }
            sawLog = true
            try readLog()
        }
        try syntax { try $0.expectEnd() }
        guard sawLog else { throw HARImportError(file: file, field: "log", reason: "missing") }
    }

    private mutating func readLog() throws {
        guard try syntax({ $0.peekValueStart() }) == UInt8(ascii: "{") else {
            let log = try syntax { try $0.parseValue() }
            throw HARImportError(file: file, field: "log", reason: "expected an object, found \(log.kindDescription)")
        }
        try syntax { try $0.beginObject() }
        var sawEntries = false
        while let key = try syntax({ try $0.nextMember() }) {
            switch key {
            case "entries":
                guard !sawEntries else {
                    throw HARImportError(file: file, field: "log.entries", reason: "appears more than once")
                }
                sawEntries = true
                try readEntries()
            case "version", "creator", "browser", "pages", "comment":
                let value = try syntax { try $0.parseValue() }
                try checkLogMember(key, value)
            default:
                _ = try syntax { try $0.parseValue() }
            }
        }
        guard sawEntries else { throw HARImportError(file: file, field: "log.entries", reason: "missing") }
    }

    /// The spec's types for the other members of `log`, checked where present.
    private func checkLogMember(_ key: String, _ value: JSONValue) throws {
        let field = JSONField(value, path: "log.\(key)")
        do {
            switch key {
            case "version", "comment": _ = try field.optionalString()
            case "creator", "browser": _ = try field.optionalObject()
            default: _ = try field.optionalArray()
            }
        } catch {
            throw HARImportError(file: file, field: error.path, reason: error.reason)
        }
    }

    private mutating func readEntries() throws {
        guard try syntax({ $0.peekValueStart() }) == UInt8(ascii: "[") else {
            let entries = try syntax { try $0.parseValue() }
            throw HARImportError(
                file: file, field: "log.entries", reason: "expected an array, found \(entries.kindDescription)")
        }
        try syntax { try $0.beginArray() }
        while try syntax({ try $0.nextElement() }) {
            _ = parser.peekValueStart()
            line += parser.newlines(from: lineCountedUpTo, to: parser.offset)
            lineCountedUpTo = parser.offset
            let value = try syntax { try $0.parseValue() }
            let exchange: Exchange
            do {
                exchange = try HAREntryDecoder.decode(JSONField(value, path: ""), options: options)
            } catch {
                throw HARImportError(
                    file: file, entryIndex: entryIndex, field: error.path.isEmpty ? nil : error.path, line: line,
                    reason: error.reason)
            }
            if let first = idsSeen.updateValue(entryIndex, forKey: exchange.id) {
                throw HARImportError(
                    file: file, entryIndex: entryIndex, field: "_id", line: line,
                    reason: "\(exchange.id.uuidString) is also the id of entry \(first)")
            }
            try each(exchange)
            entryIndex += 1
        }
    }

    /// Runs a parser step, turning a syntax error into an import error with its line and column.
    private mutating func syntax<T>(_ step: (inout JSONParser) throws -> T) throws -> T {
        do {
            return try step(&parser)
        } catch let error as JSONSyntaxError {
            throw HARImportError(file: file, line: error.line, column: error.column, reason: error.reason)
        }
    }
}

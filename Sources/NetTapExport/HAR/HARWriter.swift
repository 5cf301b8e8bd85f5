import Foundation
import NetTapCore

/// Writes a HAR 1.2 file one exchange at a time, so that memory stays flat however many
/// exchanges are exported.
///
/// Output is deterministic: the same exchanges give the same bytes (keys in a fixed order, labels
/// sorted, instants quantized to microseconds), and a file written by NetTap, read back with
/// `HARReader` and written again, is byte-identical. Entries are written one per line.
///
/// ```swift
/// FileManager.default.createFile(atPath: path, contents: nil)
/// let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
/// defer { try? handle.close() }
/// let writer = HARWriter(sink: handle)
/// try writer.begin()
/// for exchange in exchanges { try writer.write(exchange) }
/// try writer.finish()
/// ```
///
/// A writer is used from one thread at a time; it is not `Sendable`.
public final class HARWriter {
    private let sink: any ByteSink
    private let creator: HARCreator
    private let flushThreshold: Int
    private var output: JSONOutput
    private var state = State.initial

    /// Entries written so far.
    public private(set) var entryCount = 0
    /// Bytes handed to the sink so far.
    public private(set) var bytesWritten: Int64 = 0

    private enum State {
        case initial, writing, finished
    }

    /// - Parameters:
    ///   - sink: where the bytes go (a `FileHandle`, a `DataSink`, ...).
    ///   - creator: the application named in `log.creator`.
    ///   - bufferSize: bytes collected before each write to the sink.
    public init(sink: any ByteSink, creator: HARCreator = .netTap, bufferSize: Int = 256 * 1024) {
        self.sink = sink
        self.creator = creator
        self.flushThreshold = max(bufferSize, 1)
        self.output = JSONOutput(capacity: max(bufferSize, 1) + 64 * 1024)
    }

    /// Writes the opening of the file: `log.version`, `log.creator`, `log.pages` and the start of
    /// `log.entries`. Called by the first `write(_:)` when not called before.
    public func begin() throws {
        guard case .initial = state else { return }
        state = .writing
        Self.appendHead(creator: creator, to: &output)
        try flushIfNeeded()
    }

    /// Appends one entry.
    public func write(_ exchange: Exchange) throws {
        if case .initial = state { try begin() }
        guard case .writing = state else { throw HARWriterError.finished }
        Self.appendEntry(exchange, isFirst: entryCount == 0, to: &output)
        entryCount += 1
        try flushIfNeeded()
    }

    /// Closes `entries`, `log` and the document and hands every remaining byte to the sink.
    /// Writes a valid empty HAR when nothing was written. Calling it again does nothing.
    public func finish() throws {
        if case .initial = state { try begin() }
        guard case .writing = state else { return }
        state = .finished
        Self.appendTail(to: &output)
        try flush()
    }

    private func flushIfNeeded() throws {
        if output.count >= flushThreshold { try flush() }
    }

    private func flush() throws {
        guard output.count > 0 else { return }
        let chunk = output.data
        output.removeAll()
        try sink.append(chunk)
        bytesWritten += Int64(chunk.count)
    }

    // MARK: Layout shared with HAR.encode

    static func appendHead(creator: HARCreator, to out: inout JSONOutput) {
        out.beginObject()
        out.key("log")
        out.beginObject()
        out.member("version", "1.2")
        out.key("creator")
        out.beginObject()
        out.member("name", creator.name)
        out.member("version", creator.version)
        out.member("comment", ifPresent: creator.comment)
        out.endObject()
        out.key("pages")
        out.beginArray()
        out.endArray()
        out.key("entries")
        out.beginArray()
    }

    static func appendEntry(_ exchange: Exchange, isFirst: Bool, to out: inout JSONOutput) {
        // One entry per line keeps the file diffable and greppable; the separator is written here,
        // so the scope stack must not add its own.
        out.raw(isFirst ? "\n" : ",\n")
        out.suppressNextSeparator()
        HAREntryEncoder.append(exchange, to: &out)
    }

    static func appendTail(to out: inout JSONOutput) {
        out.raw("\n")
        out.endArray()
        out.endObject()
        out.endObject()
        out.raw("\n")
    }
}

import Foundation

/// Where the streaming writers (`HARWriter`, `NDJSONWriter`) put their bytes.
///
/// Writers hand over chunks of a few tens of kilobytes, in order; a sink only has to append them.
/// `FileHandle` is a sink (files, pipes, standard output), and `DataSink` collects bytes in memory.
///
/// ```swift
/// let handle = try FileHandle(forWritingTo: url)
/// let writer = HARWriter(sink: handle)
/// ```
public protocol ByteSink: AnyObject {
    /// Appends `data` after everything written before. (Not `write(_:)`: that name would collide
    /// with FileHandle's own non-throwing method.)
    func append(_ data: Data) throws
}

extension FileHandle: ByteSink {
    public func append(_ data: Data) throws {
        try write(contentsOf: data)
    }
}

/// A sink that keeps every byte in memory: for tests and for small exports.
public final class DataSink: ByteSink {
    public private(set) var data = Data()

    public init() {}

    public func append(_ data: Data) throws {
        self.data.append(data)
    }
}

import Foundation
import NetTapCore

/// HAR 1.2 in one call, for exchanges that fit in memory; `HARWriter` and `HARReader` stream.
///
/// ```swift
/// let data = HAR.encode(exchanges)
/// let again = try HAR.decode(data)   // the same exchanges, ids included
/// ```
public enum HAR {
    /// The HAR version NetTap writes.
    public static let version = "1.2"

    /// The whole HAR document for `exchanges`: the same bytes `HARWriter` writes.
    public static func encode(_ exchanges: some Sequence<Exchange>, creator: HARCreator = .netTap) -> Data {
        var output = JSONOutput()
        HARWriter.appendHead(creator: creator, to: &output)
        for (index, exchange) in exchanges.enumerated() {
            HARWriter.appendEntry(exchange, isFirst: index == 0, to: &output)
        }
        HARWriter.appendTail(to: &output)
        return output.data
    }

    /// Every entry of a HAR document as exchanges, or an error naming what is wrong and where
    /// (nothing is returned half-way).
    public static func decode(_ data: Data, options: HARReader.Options = .init()) throws(HARImportError) -> [Exchange] {
        try HARReader(options: options).decode(data)
    }
}

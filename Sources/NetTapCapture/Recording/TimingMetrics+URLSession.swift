import Foundation
import NetTapCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TimingMetrics {
    /// The last transaction's metrics (the one that produced the response). Apple platforms deliver
    /// them; corelibs 6.3 declares them but never calls `didFinishCollecting`.
    init(_ metrics: URLSessionTaskMetrics) {
        let last = metrics.transactionMetrics.last
        self.init(
            fetchStart: last?.fetchStartDate ?? metrics.taskInterval.start,
            domainLookupStart: last?.domainLookupStartDate, domainLookupEnd: last?.domainLookupEndDate,
            connectStart: last?.connectStartDate, connectEnd: last?.connectEndDate,
            secureConnectionStart: last?.secureConnectionStartDate, secureConnectionEnd: last?.secureConnectionEndDate,
            requestStart: last?.requestStartDate, requestEnd: last?.requestEndDate,
            responseStart: last?.responseStartDate, responseEnd: last?.responseEndDate ?? metrics.taskInterval.end,
            remoteAddress: last?.remoteAddress, remotePort: Self.port(last?.remotePort),
            isReusedConnection: last?.isReusedConnection, networkProtocol: last?.networkProtocolName,
            bytesSent: last.map { $0.countOfRequestBodyBytesSent }, bytesReceived: last.map { $0.countOfResponseBodyBytesReceived })
    }

    // `remotePort` is an Int on Apple platforms and a String in corelibs; overloads pick the right one.
    private static func port(_ value: Int?) -> Int? { value }
    private static func port(_ value: String?) -> Int? { value.flatMap { Int($0) } }
}

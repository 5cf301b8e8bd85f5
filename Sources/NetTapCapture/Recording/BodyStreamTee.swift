import Foundation
import NetTapCore

/// Keeps the first bytes of a request body stream while URLSession reads it, and counts them all.
/// Written by URLSession's reading thread, read once the exchange is built; guarded by a lock.
final class BodyStreamTee: @unchecked Sendable {
    private let state: Protected<BodyAccumulator>

    init(cap: Int) {
        state = Protected(BodyAccumulator(cap: cap))
    }

    func record(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { accumulator in
            accumulator.append(bytes)
        }
    }

    var capturedBody: CapturedBody {
        state.withLock { $0.body(contentType: nil) }
    }
}

import Foundation

/// Hands encoded chunks from `StoreSink`'s encoder to its writer, so that one transaction can
/// take several chunks while the next is still being encoded.
///
/// The encoder encodes at most `batchSize` exchanges at a time and puts each chunk here; the
/// writer opens a transaction, writes the chunks that are ready, and while a chunk is being
/// encoded it waits for it inside the transaction, up to `maxBatchSize` rows, rather than commit
/// early. Before, a whole transaction's worth was encoded before any of it was written: the
/// writer sat idle while the first batch was encoded and the encoder while the last was written.
///
/// Written records come back (`giveBack`) to be freed on the encoder's thread, where they were
/// allocated, rather than on the writer's, which the ingest rate waits for.
///
/// At most `capacity` chunks wait; the encoder waits for room (it runs on the sink's own queue,
/// never on a request's thread). The writer waits only while chunks are empty and a chunk is
/// being encoded, so the two never wait for each other.
final class EncodedChunkChannel: @unchecked Sendable {
    /// One chunk of encoded exchanges, with what the encoder counted while making it.
    struct Chunk {
        var records: [ExchangeRecord]
        /// Exchanges the encoder refused (`ExchangeStoreError.invalidExchange`).
        var rejected: Int
        /// Exchanges dropped from the pending buffer since the chunk before.
        var dropped: Int
    }

    private let condition = NSCondition()
    private let capacity: Int
    private var ready: [Chunk] = []
    /// Chunks being encoded now (0 or 1: the encoder is a serial queue).
    private var encoding = 0
    /// Whether a writer job is scheduled or running.
    private var writerActive = false
    /// Written records, for the encoder to free.
    private var spent: [[ExchangeRecord]] = []

    init(capacity: Int = 2) {
        self.capacity = max(1, capacity)
    }

    // MARK: Encoder

    /// Says that a chunk is being encoded, so that a writer with an open transaction waits for it.
    /// Every call is followed by `put(_:)` or `withdraw()`.
    func beginEncoding() {
        condition.lock()
        encoding += 1
        condition.unlock()
    }

    /// Hands over the chunk begun with `beginEncoding()`, waiting while `capacity` chunks wait.
    /// Returns true when no writer is active: the caller schedules one.
    func put(_ chunk: consuming Chunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= capacity { condition.wait() }
        ready.append(chunk)
        encoding -= 1
        condition.broadcast()
        guard !writerActive else { return false }
        writerActive = true
        return true
    }

    /// Ends a `beginEncoding()` that found nothing to hand over.
    func withdraw() {
        condition.lock()
        encoding -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Takes the written records handed back, so that the caller frees them.
    func takeSpent() -> [[ExchangeRecord]] {
        condition.lock()
        defer { condition.unlock() }
        defer { spent.removeAll() }
        return spent
    }

    // MARK: Writer

    /// Hands back records the writer is done with, for the encoder to free.
    /// Returns true when they are the first waiting: the caller then makes sure the encoder runs.
    func giveBack(_ records: consuming [ExchangeRecord]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        spent.append(records)
        return spent.count == 1
    }

    /// The next chunk, waiting for one that is being encoded; nil when none is ready or coming.
    /// A writer with an open transaction commits on nil, and then calls `nextOrRetire()`.
    func next() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    /// Like `next()`, but on nil the writer is no longer active: the next `put` schedules a new one.
    func nextOrRetire() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        let chunk = takeLocked()
        if chunk == nil { writerActive = false }
        return chunk
    }

    private func takeLocked() -> Chunk? {
        while ready.isEmpty, encoding > 0 { condition.wait() }
        guard !ready.isEmpty else { return nil }
        let chunk = ready.removeFirst()
        // Room for the encoder.
        condition.broadcast()
        return chunk
    }
}

import Dispatch
import Foundation
import NetTapCore

/// Keeps captured exchanges in an `ExchangeStore`, written in batched transactions.
///
/// `receive(_:)` only appends to a bounded pending buffer and returns: it never waits for the
/// disk. A batch is written every `batchInterval` or as soon as `batchSize` exchanges wait,
/// whichever comes first. Exchanges are encoded in chunks of `batchSize` on one queue and written
/// on another (`EncodedChunkChannel`): a backlog goes in transactions of at most `maxBatchSize`,
/// each taking chunks as they are encoded. When more than
/// `pendingLimit` exchanges wait, the oldest is dropped and counted (`droppedCount`, and in the
/// store's `dropped_events`). After each batch the retention policy runs a few small chunks.
///
/// A crash (even `kill -9`) loses at most the exchanges not yet written: those of the last
/// `batchInterval`. Call `flush()` before exit to lose none.
///
/// ```swift
/// let store = try ExchangeStore(path: StoreLocation.resolve(option: nil))
/// let sink = StoreSink(store: store, configuration: .init(retention: .standard))
/// NetTap.shared.addSink(sink)
/// // at shutdown
/// sink.close()
/// ```
public final class StoreSink: CaptureSink {
    /// How the sink batches and what it keeps.
    public struct Configuration: Sendable {
        /// The longest an exchange waits before its batch is written.
        public var batchInterval: TimeInterval
        /// A batch is written as soon as this many exchanges wait; exchanges are also encoded
        /// (column values, SHA-256, zlib) and handed to the writer in chunks of this many.
        public var batchSize: Int
        /// The most exchanges one transaction writes. Under load more wait than `batchSize`;
        /// one transaction then takes chunk after chunk, writing one while the next is encoded,
        /// up to this many. Larger transactions rewrite each
        /// touched index page fewer times (nettap-bench store: 500 rows per transaction ingest
        /// at about half the rate of 2,000; 5,000 about a fifth faster than 2,000). A
        /// transaction of 5,000 takes about 0.1 s, the same as the default `batchInterval`.
        public var maxBatchSize: Int
        /// How many exchanges may wait before the oldest are dropped.
        public var pendingLimit: Int
        /// What the store keeps; applied after each batch.
        public var retention: RetentionPolicy
        /// Chunks of retention deletes per batch (a chunk is at most 200 exchanges).
        public var retentionChunksPerBatch: Int

        public init(
            batchInterval: TimeInterval = 0.1, batchSize: Int = 500, maxBatchSize: Int = 5_000,
            pendingLimit: Int = 10_000, retention: RetentionPolicy = .standard, retentionChunksPerBatch: Int = 4
        ) {
            self.batchInterval = batchInterval
            self.batchSize = max(1, batchSize)
            self.maxBatchSize = max(1, maxBatchSize)
            self.pendingLimit = max(1, pendingLimit)
            self.retention = retention
            self.retentionChunksPerBatch = max(1, retentionChunksPerBatch)
        }
    }

    /// Counters since the sink was created.
    public struct Counters: Sendable, Hashable {
        /// Exchanges written to the store.
        public var written = 0
        /// Exchanges dropped, oldest first, because too many were waiting.
        public var dropped = 0
        /// Exchanges refused because they hold values the store cannot keep (see `ExchangeStoreError.invalidExchange`).
        public var rejected = 0
        /// Exchanges skipped because their ID was already stored.
        public var duplicates = 0
        /// Exchanges lost because a batch failed to write (see `lastError`).
        public var failed = 0
        /// Exchanges removed by retention.
        public var pruned = 0
        /// Batches committed (each one transaction).
        public var batches = 0
    }

    public let store: ExchangeStore
    public let configuration: Configuration
    public var pendingLimit: Int { configuration.pendingLimit }

    private struct State {
        var pending: DropOldestBuffer<Exchange>
        var droppedSinceWrite = 0
        var timerArmed = false
        var batchScheduled = false
        var closed = false
        var counters = Counters()
        var lastError: (any Error)?
    }

    private let state: Protected<State>
    /// Drains the pending buffer and encodes chunks (`ExchangeRecord`), off the store's queue.
    private let encodeQueue = DispatchQueue(label: "NetTap.StoreSink.encode", qos: .utility)
    /// Writes encoded chunks to the store in transactions, and runs retention.
    private let writeQueue = DispatchQueue(label: "NetTap.StoreSink.write", qos: .utility)
    /// From `encodeQueue` to `writeQueue`; holds at most two encoded chunks.
    private let chunks = EncodedChunkChannel()
    /// Exchanges per encoded chunk: `batchSize`, and never more than one transaction takes.
    private var chunkSize: Int { min(configuration.batchSize, configuration.maxBatchSize) }
    /// Wakes `waitForWritten` after each batch.
    private let progress = NSCondition()

    public init(store: ExchangeStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        state = Protected(State(pending: DropOldestBuffer<Exchange>(limit: configuration.pendingLimit)))
    }

    // MARK: CaptureSink

    public func receive(_ event: consuming CaptureEvent) {
        guard case .finished(let exchange) = consume event else { return }
        enum Next { case nothing, writeNow, armTimer }
        // Moved into the pending buffer under the lock rather than copied into it.
        var kept = Optional(exchange)
        let next = state.withLock { state -> Next in
            guard !state.closed, let exchange = kept.take() else { return .nothing }
            if state.pending.append(exchange) {
                state.counters.dropped += 1
                state.droppedSinceWrite += 1
            }
            if state.pending.count >= configuration.batchSize, !state.batchScheduled {
                state.batchScheduled = true
                return .writeNow
            }
            if !state.timerArmed, !state.batchScheduled {
                state.timerArmed = true
                return .armTimer
            }
            return .nothing
        }
        switch next {
        case .nothing: break
        case .writeNow: encodeQueue.async { self.writePending() }
        case .armTimer:
            encodeQueue.asyncAfter(deadline: .now() + configuration.batchInterval) {
                self.state.withLock { $0.timerArmed = false }
                self.writePending()
            }
        }
    }

    // MARK: Control

    /// Writes everything received so far, waits until it is committed, and brings the store
    /// within its retention limits.
    /// Throws the error of that write, if it failed (the exchanges are then counted in `failed`).
    public func flush() throws {
        let failedBefore = counters.failed
        encodeQueue.sync {
            repeat {
                writePending()
            } while pendingCount > 0
            // Queued behind the writer, which has the last chunk by now: waits for it to be
            // committed, then lets retention catch up completely.
            writeQueue.sync { applyRetention(complete: true) }
        }
        let error = state.withLock { $0.counters.failed > failedBefore ? $0.lastError : nil }
        if let error { throw error }
    }

    /// Flushes, then ignores further events. Safe to call more than once.
    public func close() {
        try? flush()
        state.withLock { $0.closed = true }
        // A final flush catches what arrived between the flush and the flag.
        try? flush()
    }

    /// Waits until at least `count` exchanges have been written in all, or `timeout` passes.
    /// Returns whether they were. For tests and tools that must see a batch land without forcing it.
    public func waitForWritten(_ count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        progress.lock()
        defer { progress.unlock() }
        while writtenCount < count {
            guard progress.wait(until: deadline) else { return writtenCount >= count }
        }
        return true
    }

    /// The counters so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Exchanges dropped because too many were waiting.
    public var droppedCount: Int { counters.dropped }

    /// Exchanges written to the store.
    public var writtenCount: Int { counters.written }

    /// How many exchanges wait for the next batch.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The last error a batch or a retention pass met, if any.
    public var lastError: (any Error)? { state.withLock { $0.lastError } }

    // MARK: Batches

    /// On `encodeQueue`: takes what is pending (at most `chunkSize`), encodes it, and hands it
    /// to the writer. When more is left, the next chunk is queued right behind, so that it is
    /// encoded while this one is written.
    private func writePending() {
        // Frees records written since the last pass, on this thread, which allocated them.
        _ = chunks.takeSpent()
        chunks.beginEncoding()
        let (exchanges, dropped, more) = state.withLock { state -> ([Exchange], Int, Bool) in
            let dropped = state.droppedSinceWrite
            state.droppedSinceWrite = 0
            let batch = state.pending.drain(upTo: chunkSize)
            // Leaves batchScheduled set while a follow-up chunk is queued.
            let more = !state.pending.isEmpty
            state.batchScheduled = more
            return (batch, dropped, more)
        }
        if more { encodeQueue.async { self.writePending() } }
        guard !exchanges.isEmpty || dropped > 0 else {
            chunks.withdraw()
            return
        }
        var records: [ExchangeRecord] = []
        records.reserveCapacity(exchanges.count)
        var rejected = 0
        let threshold = store.configuration.compressionThreshold
        for exchange in exchanges {
            if let record = try? ExchangeRecord(exchange, compressionThreshold: threshold) {
                records.append(record)
            } else {
                rejected += 1
            }
        }
        if chunks.put(EncodedChunkChannel.Chunk(records: records, rejected: rejected, dropped: dropped)) {
            writeQueue.async { self.runWriter() }
        }
    }

    /// On `writeQueue`: writes the chunks the encoder hands over, in transactions of up to
    /// `maxBatchSize` exchanges, until none is ready or being encoded; retention after each.
    private func runWriter() {
        var spentWaiting = false
        while let first = chunks.nextOrRetire() {
            var first = Optional(first)
            var offered = 0
            var rejected = 0
            // The records of the chunk the store wrote last, handed back once it asks for the next.
            var written: [ExchangeRecord]?
            defer { if let written, chunks.giveBack(written) { spentWaiting = true } }
            do {
                let inserted = try store.writeBatch {
                    if let done = written.take(), chunks.giveBack(done) { spentWaiting = true }
                    // Another chunk only when the largest one still fits in maxBatchSize.
                    guard offered == 0 || offered + chunkSize <= configuration.maxBatchSize,
                        let chunk = first.take() ?? chunks.next()
                    else { return nil }
                    offered += chunk.records.count
                    rejected += chunk.rejected
                    written = chunk.records
                    return (chunk.records, chunk.dropped)
                }
                state.withLock { state in
                    state.counters.written += inserted
                    state.counters.duplicates += offered - inserted
                    state.counters.rejected += rejected
                    state.counters.batches += 1
                }
                progress.lock()
                progress.broadcast()
                progress.unlock()
            } catch {
                state.withLock { state in
                    state.counters.failed += offered
                    state.counters.rejected += rejected
                    state.lastError = error
                }
                continue
            }
            applyRetention()
        }
        // Records handed back while no chunk follows would otherwise wait for the next one.
        if spentWaiting { encodeQueue.async { _ = self.chunks.takeSpent() } }
    }

    /// On `writeQueue`: a few chunks of retention, scheduling more when limits are still exceeded;
    /// or, when `complete`, as many as it takes.
    private func applyRetention(complete: Bool = false) {
        guard !configuration.retention.isUnlimited else { return }
        do {
            let result = try store.applyRetention(
                configuration.retention, maxChunks: complete ? nil : configuration.retentionChunksPerBatch)
            state.withLock { $0.counters.pruned += result.removedExchanges }
            if !result.limitsMet {
                writeQueue.async { [self] in applyRetention() }
            }
        } catch {
            state.withLock { $0.lastError = error }
        }
    }
}

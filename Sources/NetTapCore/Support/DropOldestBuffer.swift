/// A first-in, first-out buffer of at most `limit` elements that never blocks and never grows past
/// its limit: when it is full, a new element replaces the oldest one, which is released and counted
/// as dropped.
///
/// It is how NetTap keeps its promise that a slow consumer (the hub, a sink, the store) costs only
/// its own events: producers append in O(1) under their own lock, whatever the consumer is doing.
///
/// ```swift
/// var pending = DropOldestBuffer<Int>(limit: 2)
/// pending.append(1); pending.append(2)
/// let dropped = pending.append(3)   // true: 1 made room for 3
/// pending.drain()                   // [2, 3]
/// ```
///
/// Storage is a queue of segments of about 64 KiB. Growing adds a segment and moves nothing, so
/// an append never costs more than one allocation, even in the middle of a burst of 100,000
/// exchanges; a ring that doubled had to move every waiting element while the producer held its
/// lock, and touched twice the memory it finally held (BENCHMARKS.md, store). Segments are released
/// as they empty, apart from one kept for the next batch.
///
/// Inlinable, so that the hub, the sink queues and the store sink each get it specialized for their
/// element type: as an unspecialized generic every move went through value witnesses (BENCHMARKS.md).
public struct DropOldestBuffer<Element> {
    /// The most elements the buffer holds.
    public let limit: Int
    /// Elements per segment: about 64 KiB, under glibc's threshold for mapping an allocation.
    @usableFromInline let segmentSize: Int
    /// Oldest segment first; `segments[first...]` are live, the ones before are released.
    @usableFromInline var segments: [ContiguousArray<Element?>] = []
    @usableFromInline var first = 0
    /// Where the oldest element sits in `segments[first]`.
    @usableFromInline var head = 0
    /// How many elements wait.
    @inlinable public var count: Int { storedCount }
    @usableFromInline var storedCount = 0

    @inlinable
    public init(limit: Int) {
        self.limit = max(1, limit)
        let stride = max(1, MemoryLayout<Element?>.stride)
        segmentSize = max(8, min(self.limit, (64 << 10) / stride))
    }

    @inlinable
    public var isEmpty: Bool { storedCount == 0 }

    /// Appends `element`, taking it over rather than copying it; returns true when the oldest
    /// element was dropped to make room.
    @inlinable
    @discardableResult
    public mutating func append(_ element: consuming Element) -> Bool {
        var dropped = false
        if storedCount == limit {
            _ = removeFirst()
            dropped = true
        }
        if first == segments.count || segments[segments.count - 1].count == segmentSize {
            addSegment()
        }
        segments[segments.count - 1].append(consume element)
        storedCount += 1
        return dropped
    }

    /// Removes and returns the oldest element.
    @inlinable
    public mutating func removeFirst() -> Element? {
        guard storedCount > 0 else { return nil }
        let element = segments[first][head].take()
        head += 1
        storedCount -= 1
        if head == segments[first].count { retireFirstSegment() }
        return element
    }

    /// Everything buffered, oldest first; leaves the buffer empty.
    @inlinable
    public mutating func drain() -> [Element] {
        drain(upTo: storedCount)
    }

    /// The oldest `maximum` elements (or all, when fewer wait), oldest first; the rest stay.
    @inlinable
    public mutating func drain(upTo maximum: Int) -> [Element] {
        let taken = min(storedCount, max(0, maximum))
        var drained: [Element] = []
        drained.reserveCapacity(taken)
        for _ in 0..<taken {
            // Moved out, not copied: an exchange holds dozens of references to retain and release.
            if let element = removeFirst() { drained.append(element) }
        }
        return drained
    }

    /// Starts a new last segment, reusing the storage of one that emptied when there is one.
    @inlinable
    mutating func addSegment() {
        if first > 0, segments[first - 1].capacity >= segmentSize {
            // The segment released last kept its storage (see `retireFirstSegment`).
            segments.append(segments[first - 1])
            segments[first - 1] = []
        } else {
            var segment = ContiguousArray<Element?>()
            segment.reserveCapacity(segmentSize)
            segments.append(segment)
        }
    }

    /// The oldest segment has been read to its end: keeps its storage for the next segment and
    /// releases the one kept before.
    @inlinable
    mutating func retireFirstSegment() {
        head = 0
        segments[first].removeAll(keepingCapacity: true)
        if first == segments.count - 1 {
            // It was also the newest, so the buffer is empty: it takes the next elements itself.
            if first > 0 { segments.removeFirst(first) }
            first = 0
            return
        }
        if first > 0 { segments[first - 1] = [] }
        first += 1
        // Forget released slots now and then, so that `segments` does not grow with every segment
        // ever used; the kept one stays just before `first`.
        if first >= 64, first * 2 >= segments.count {
            segments.removeFirst(first - 1)
            first = 1
        }
    }
}

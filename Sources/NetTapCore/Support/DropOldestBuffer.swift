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
public struct DropOldestBuffer<Element> {
    /// The most elements the buffer holds.
    public let limit: Int
    /// A ring over `slots`; storage grows (up to `limit`) only as elements arrive.
    private var slots: [Element?] = []
    private var head = 0
    public private(set) var count = 0

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    public var isEmpty: Bool { count == 0 }

    /// Appends `element`; returns true when the oldest element was dropped to make room.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        if count == limit {
            slots[head] = element
            head = (head + 1) % limit
            return true
        }
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
        return false
    }

    /// Removes and returns the oldest element.
    public mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Everything buffered, oldest first; leaves the buffer empty. Storage of up to
    /// `keptCapacity` slots is kept for the next batch (regrowing it for every batch showed in
    /// profiles); larger storage, left by a burst, is released.
    public mutating func drain() -> [Element] {
        var drained: [Element] = []
        drained.reserveCapacity(count)
        let keep = slots.count <= Self.keptCapacity
        for offset in 0..<count {
            // Moved out, not copied: an exchange holds dozens of references to retain and release.
            if let element = slots[(head + offset) % slots.count].take() { drained.append(element) }
        }
        if !keep { slots = [] }
        head = 0
        count = 0
        return drained
    }

    /// The most slots `drain()` keeps allocated.
    static var keptCapacity: Int { 1024 }

    /// The oldest `maximum` elements (or all, when fewer wait), oldest first; the rest stay.
    public mutating func drain(upTo maximum: Int) -> [Element] {
        guard maximum < count else { return drain() }
        var drained: [Element] = []
        drained.reserveCapacity(max(0, maximum))
        for _ in 0..<max(0, maximum) {
            if let element = slots[head].take() { drained.append(element) }
            head = (head + 1) % slots.count
            count -= 1
        }
        return drained
    }

    /// Doubles the storage (at most to `limit`), laying the elements out from index 0. Elements
    /// are moved, never copied (a copy of an exchange retains and later releases each of its
    /// strings and buffers; under a burst this showed in profiles of the store sink).
    private mutating func grow() {
        let capacity = min(limit, max(16, slots.count * 2))
        if head == 0 {
            // Not wrapped: the array grows in place, moving its elements.
            slots.append(contentsOf: repeatElement(nil, count: capacity - slots.count))
            return
        }
        var larger = [Element?](repeating: nil, count: capacity)
        for offset in 0..<count { larger[offset] = slots[(head + offset) % slots.count].take() }
        slots = larger
        head = 0
    }
}

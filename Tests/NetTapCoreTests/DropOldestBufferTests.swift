import Testing
@testable import NetTapCore

@Suite struct DropOldestBufferTests {
    /// Counts its live instances in `alive`, to see when the buffer releases an element.
    final class Tracked {
        let alive: Protected<Int>
        init(_ alive: Protected<Int>) {
            self.alive = alive
            alive.withLock { $0 += 1 }
        }
        deinit { alive.withLock { $0 -= 1 } }
    }

    @Test("keeps the newest `limit` elements in order and counts what it pushed out")
    func keepsTheNewest() {
        var buffer = DropOldestBuffer<Int>(limit: 4)
        let dropped = (0..<10).map { buffer.append($0) }.filter { $0 }.count
        #expect(dropped == 6)
        #expect(buffer.count == 4)
        let drained = buffer.drain()
        #expect(drained == [6, 7, 8, 9])
        #expect(buffer.isEmpty)
        let droppedAfterDrain = buffer.append(42)
        #expect(!droppedAfterDrain, "a drained buffer has room again")
        let again = buffer.drain()
        #expect(again == [42])
    }

    @Test("a dropped element is released at once, so a stalled consumer holds at most `limit` of them")
    func droppedElementsAreReleased() {
        let alive = Protected(0)
        var buffer = DropOldestBuffer<Tracked>(limit: 3)
        for _ in 0..<1_000 { buffer.append(Tracked(alive)) }
        #expect(alive.current == 3)
        _ = buffer.drain()
        #expect(alive.current == 0)
    }

    @Test("a limit below one is treated as one")
    func limitIsAtLeastOne() {
        var buffer = DropOldestBuffer<String>(limit: 0)
        #expect(buffer.limit == 1)
        buffer.append("a")
        let dropped = buffer.append("b")
        #expect(dropped)
        let kept = buffer.drain()
        #expect(kept == ["b"])
    }
}

extension DropOldestBufferTests {
    @Test("drain(upTo:) takes the oldest few and leaves the rest in order, across wrap-around")
    func partialDrain() {
        var buffer = DropOldestBuffer<Int>(limit: 8)
        for value in 0 ..< 11 { buffer.append(value) }  // holds 3...10, wrapped
        #expect(buffer.drain(upTo: 3) == [3, 4, 5])
        #expect(buffer.count == 5)
        buffer.append(11)
        #expect(buffer.drain(upTo: 0) == [])
        #expect(buffer.drain(upTo: 100) == [6, 7, 8, 9, 10, 11])
        #expect(buffer.isEmpty)
    }

    @Test("removeFirst and append interleave in order, across wrap-around and growth")
    func interleavedUse() {
        var buffer = DropOldestBuffer<Int>(limit: 40)
        var expected: [Int] = []
        var next = 0
        // A consumer that takes one for every two the producer adds, until the buffer is full.
        for step in 0..<200 {
            let dropped = buffer.append(next)
            expected.append(next)
            next += 1
            if dropped { expected.removeFirst() }
            if step % 2 == 1 {
                let first = buffer.removeFirst()
                #expect(first == expected.first)
                expected.removeFirst()
            }
            #expect(buffer.count == expected.count)
        }
        let rest = buffer.drain()
        #expect(rest == expected)
        let none = buffer.removeFirst()
        #expect(none == nil)
    }
}

extension DropOldestBufferTests {
    /// An element of 520 bytes (528 as an optional), so that a segment (about 64 KiB) holds 124
    /// of them and the buffer below spans many segments.
    struct Wide: Equatable {
        var value: Int
        var padding = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        static func == (a: Wide, b: Wide) -> Bool { a.value == b.value }
    }

    @Test("across many segments, bursts, drops, partial drains and single removals keep arrival order")
    func manySegmentsKeepOrder() {
        #expect(MemoryLayout<Wide?>.stride > 500, "the element must be wide enough to need many segments")
        var buffer = DropOldestBuffer<Wide>(limit: 1_000)
        var model: [Int] = []
        var next = 0
        var dropsSeen = 0
        for round in 0..<60 {
            // A burst of 0 to 1,500 (past the limit some rounds), then a consumer that takes some;
            // the sizes are spread by fixed strides, so that every run is the same.
            for _ in 0..<(round * 7_919 % 1_501) {
                if buffer.append(Wide(value: next)) {
                    model.removeFirst()
                    dropsSeen += 1
                }
                model.append(next)
                next += 1
            }
            #expect(buffer.count == model.count)
            switch round % 3 {
            case 0:
                let take = round * 104_729 % 401
                let taken = buffer.drain(upTo: take).map(\.value)
                #expect(taken == Array(model.prefix(take)))
                model.removeFirst(min(take, model.count))
            case 1:
                for _ in 0..<(round * 31_337 % 301) {
                    let first = buffer.removeFirst()?.value
                    #expect(first == model.first)
                    if !model.isEmpty { model.removeFirst() }
                }
            default:
                #expect(buffer.drain().map(\.value) == model)
                model.removeAll()
            }
            #expect(buffer.count == model.count)
        }
        #expect(dropsSeen > 0, "some bursts must have passed the limit")
        #expect(buffer.drain().map(\.value) == model)
        #expect(buffer.isEmpty)
        #expect(buffer.removeFirst() == nil)
    }

    @Test("elements are released as they leave, whichever segment holds them")
    func releasesAcrossSegments() {
        let alive = Protected(0)
        var buffer = DropOldestBuffer<Tracked>(limit: 20_000)
        for _ in 0..<25_000 { buffer.append(Tracked(alive)) }  // 8,192 per segment: three segments
        #expect(alive.current == 20_000)
        _ = buffer.drain(upTo: 9_000)
        #expect(alive.current == 11_000)
        for _ in 0..<1_000 { _ = buffer.removeFirst() }
        #expect(alive.current == 10_000)
        _ = buffer.drain()
        #expect(alive.current == 0)
    }
}

extension Array {
    /// Rearranges the elements in place so that position `i` holds the element that was at
    /// `sources[i]`; `sources` must be a permutation of the indices.
    ///
    /// Elements only move (by swapping), so none is copied: for an array of strings, building the
    /// permuted array with `map` retained and released each one.
    mutating func permute<Sources: RandomAccessCollection<Int>>(takingEach sources: Sources) where Sources.Index == Int {
        precondition(sources.count == count, "a permutation of every index")
        // Through the buffer: its `swapAt` moves the two elements, where Array's copies them.
        withUnsafeMutableBufferPointer { elements in
            for position in elements.indices {
                // The element that belongs here started at `sources[position]`; if that slot was
                // already filled, it was swapped away to the slot its filler came from.
                var source = sources[sources.startIndex + position]
                while source < position { source = sources[sources.startIndex + source] }
                if source != position { elements.swapAt(position, source) }
            }
        }
    }
}

/// The bodies a store wrote or referred to most recently, by hash: how the store deduplicates
/// bodies without an index on `bodies.hash`.
///
/// A persistent index keyed by a hash puts every new key on a random page, so each new body
/// cost a page written to the WAL and again at checkpoint; measured with Python's `sqlite3` on
/// the benchmark's rows, that index cost about a third of the ingest rate (BENCHMARKS.md). Repeated
/// bodies are the same few responses fetched again and again, so a bounded memory of recent
/// ones finds nearly all of them. A body last seen longer ago than `capacity` distinct bodies
/// is stored again, as a second row; both rows are complete and counted, only space is spent.
///
/// Entries are hints, not truth: another connection may delete a body (retention, `nettap
/// prune`) and SQLite may give its id to new bytes, and a rolled-back transaction leaves
/// entries for rows that never existed. `RecordWriter` therefore takes a reference only with
/// `UPDATE ... WHERE id = ? AND hash = ?` and stores the bytes again when no row matches.
///
/// Eviction is CLOCK (second chance): an entry used since it was last passed over stays for one
/// more round, so a popular body is not forgotten just because it was first seen long ago.
struct RecentBodies {
    /// Distinct bodies remembered at most.
    let capacity: Int
    /// Body id and whether it was used since the clock hand last passed, by hash prefix.
    private var entries: [UInt64: Entry] = [:]
    /// Keys in clock order; `hand` is the next one considered for eviction.
    private var ring: [UInt64] = []
    private var hand = 0
    /// Whether the newest bodies of the file have been read in (`RecordWriter.warmUp()`).
    private(set) var isWarm = false

    private struct Entry {
        var id: Int64
        var used: Bool
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The key of a SHA-256: its first eight bytes. Two bodies sharing them is a 2^-64 chance,
    /// and harmless: the `hash = ?` check sends the second one to a new row.
    static func key(_ hash: [UInt8]) -> UInt64 {
        var key: UInt64 = 0
        for byte in hash.prefix(8) { key = key << 8 | UInt64(byte) }
        return key
    }

    var count: Int { entries.count }

    /// The id last stored for these bytes, marking it used.
    mutating func id(for key: UInt64) -> Int64? {
        guard let entry = entries[key] else { return nil }
        if !entry.used { entries[key]?.used = true }
        return entry.id
    }

    /// Remembers that `key`'s bytes are stored as `id`, evicting the least recently useful entry
    /// when full.
    mutating func remember(_ key: UInt64, id: Int64) {
        guard capacity > 0 else { return }
        if entries[key] != nil {
            entries[key] = Entry(id: id, used: true)
            return
        }
        if ring.count < capacity {
            ring.append(key)
        } else {
            // Each pass clears one `used` bit, so this ends within one turn of the ring.
            while let entry = entries[ring[hand]], entry.used {
                entries[ring[hand]]?.used = false
                hand = (hand + 1) % ring.count
            }
            entries[ring[hand]] = nil
            ring[hand] = key
            hand = (hand + 1) % ring.count
        }
        entries[key] = Entry(id: id, used: false)
    }

    /// Marks the memory as filled from the file (or as not needing it).
    mutating func markWarm() {
        isWarm = true
    }
}

import Foundation

/// The text columns of one `ExchangeRecord`, in one buffer that lives as long as the record.
///
/// The writer binds them with SQLITE_STATIC: SQLite reads each value in place while the insert
/// steps, instead of copying it into memory of its own at bind time (a malloc, a copy and a free
/// per column, 22 columns per exchange, on the write queue that the ingest rate waits for). The
/// buffer is allocated here, never moves and is freed in deinit, so its addresses stay valid as
/// long as the record holds it; `RecordWriter` keeps the record alive until it resets the
/// statement, which clears the bindings.
package final class ColumnBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a buffer of its own.
    init(_ bytes: [UInt8]) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = storage.baseAddress {
                target.copyMemory(from: base, byteCount: source.count)
            }
        }
    }

    deinit {
        storage.deallocate()
    }

    /// The bytes of `column`, valid while this object lives (immutable after init, so `Sendable`).
    func buffer(_ column: ColumnText) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[column.start ..< column.start + column.count])
    }

    /// The column as a `String` (for tests and diagnostics; the writer binds `buffer` instead).
    package func string(_ column: ColumnText?) -> String? {
        column.map { String(decoding: buffer($0), as: UTF8.self) }
    }
}

/// Where one text column's UTF-8 bytes sit in its record's `ColumnBytes`.
package struct ColumnText: Sendable, Hashable {
    let start: Int
    let count: Int
}

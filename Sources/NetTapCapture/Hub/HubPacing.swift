/// Hands the hub's CPU back to the app's threads at short, regular intervals while the hub works
/// through a batch.
///
/// The hub wakes once per coalescing delay and then builds a whole batch at once: at a few
/// thousand requests a second that is half a millisecond of work on one of the cores. On Linux
/// a thread that URLSession wakes meanwhile can wait behind that burst: the hub's lower priority
/// (`.utility`, which libdispatch turns into nice 2) gives it a smaller share of the CPU, not a
/// shorter hold on it. Yielding every few exchanges bounds that wait (BENCHMARKS.md, "the hub
/// yields"; docs/linux-foundation-notes.md, fact 25).
struct HubPacing {
    /// Exchanges built between yields: about 40 µs of the hub's work on a busy machine.
    static let defaultStride = 4

    /// Units of work between yields; nil never yields.
    private let stride: Int?
    private let yieldProcessor: () -> Void
    private var sinceYield = 0

    /// The pacing this platform wants: a stride on Linux, none on Apple platforms (`PlatformScheduler`).
    init() {
        self.init(
            stride: PlatformScheduler.yieldsDuringBatches ? Self.defaultStride : nil,
            yieldProcessor: PlatformScheduler.yieldProcessor)
    }

    /// - Parameters:
    ///   - stride: units of work between yields; nil never yields.
    ///   - yieldProcessor: offers the CPU to other runnable threads.
    init(stride: Int?, yieldProcessor: @escaping () -> Void) {
        self.stride = stride
        self.yieldProcessor = yieldProcessor
    }

    /// Called after each unit of work: yields after every `stride` of them.
    mutating func checkpoint() {
        guard let stride else { return }
        sinceYield += 1
        guard sinceYield >= stride else { return }
        sinceYield = 0
        yieldProcessor()
    }
}

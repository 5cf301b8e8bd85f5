#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How NetTap's background work makes way for the app's threads, per platform.
enum PlatformScheduler {
    #if os(Linux)
    /// Linux: a nice value (libdispatch's mapping of `.utility`) changes a thread's share of the
    /// CPU; it did not keep the hub's bursts from holding up URLSession's threads in the capture
    /// benchmark, and yielding helped (docs/linux-foundation-notes.md, fact 25).
    static let yieldsDuringBatches = true

    static func yieldProcessor() {
        sched_yield()
    }
    #else
    /// Apple platforms: the Mach scheduler preempts lower-priority threads as soon as a
    /// higher-priority one is runnable, so the hub's `.utility` QoS already makes way for the
    /// app. Not measured on Darwin; left to the scheduler.
    static let yieldsDuringBatches = false

    static func yieldProcessor() {}
    #endif
}

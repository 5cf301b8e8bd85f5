import Foundation
import NetTapCore

/// The `timings` object of a HAR entry, in whole microseconds; -1 marks a phase that is unknown
/// or does not apply (only `blocked`, `dns`, `connect` and `ssl` may be -1, as in the spec).
///
/// `connect` includes `ssl` (HAR 1.2), so `total` leaves `ssl` out: `time` equals `total`.
struct HARTimings: Equatable, Sendable {
    var blocked: Int64 = -1
    var dns: Int64 = -1
    var connect: Int64 = -1
    var send: Int64 = 0
    var wait: Int64 = 0
    var receive: Int64 = 0
    var ssl: Int64 = -1

    /// The entry's `time`: the sum of the phases that are known.
    var total: Int64 {
        max(blocked, 0) + max(dns, 0) + max(connect, 0) + send + wait + receive
    }

    init(blocked: Int64 = -1, dns: Int64 = -1, connect: Int64 = -1, send: Int64 = 0, wait: Int64 = 0,
         receive: Int64 = 0, ssl: Int64 = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }

    /// The phases of `exchange`, fitted so that `total` equals its duration when the duration is known.
    ///
    /// Without metrics the whole duration is `wait`. With metrics each phase comes from its two
    /// instants; time the metrics do not account for (queueing before the fetch, gaps) goes to
    /// `blocked`, and when the metrics claim more than the duration the later phases are cut, because
    /// the duration is what the exchange reports.
    init(exchange: Exchange) {
        let duration = exchange.duration.map { Self.micros(seconds: $0) }
        guard let metrics = exchange.metrics else {
            self.init(wait: max(duration ?? 0, 0))
            return
        }
        let start = ISOTimestamp.micros(exchange.startedAt)
        func at(_ date: Date?) -> Int64? { date.map(ISOTimestamp.micros) }
        func span(_ from: Int64?, _ to: Int64?) -> Int64? {
            guard let from, let to else { return nil }
            return max(0, to - from)
        }
        let fetchStart = at(metrics.fetchStart)
        let dnsStart = at(metrics.domainLookupStart), dnsEnd = at(metrics.domainLookupEnd)
        let connectStart = at(metrics.connectStart), connectEnd = at(metrics.connectEnd)
        let requestStart = at(metrics.requestStart), requestEnd = at(metrics.requestEnd)
        let responseStart = at(metrics.responseStart), responseEnd = at(metrics.responseEnd)

        self.init()
        blocked = span(fetchStart, dnsStart ?? connectStart ?? requestStart) ?? -1
        dns = span(dnsStart, dnsEnd) ?? -1
        connect = span(connectStart, connectEnd) ?? -1
        ssl = span(at(metrics.secureConnectionStart), at(metrics.secureConnectionEnd)) ?? -1
        send = span(requestStart, requestEnd) ?? 0
        wait = span(requestEnd ?? requestStart ?? connectEnd ?? dnsEnd ?? fetchStart ?? start, responseStart) ?? 0
        receive = span(responseStart, responseEnd) ?? 0
        if let duration {
            fit(to: max(duration, 0))
        }
    }

    private mutating func fit(to duration: Int64) {
        let measured = total
        if measured < duration {
            blocked = max(blocked, 0) + (duration - measured)
            return
        }
        guard measured > duration else { return }
        var remaining = duration
        func cut(_ phase: inout Int64) {
            guard phase >= 0 else { return }
            phase = min(phase, remaining)
            remaining -= phase
        }
        cut(&blocked)
        cut(&dns)
        cut(&connect)
        cut(&send)
        cut(&wait)
        cut(&receive)
        if ssl > connect { ssl = max(connect, 0) }
    }

    /// Instants that reproduce these phases when laid end to end from `start` (microseconds since
    /// 1970): how an imported entry without NetTap's own `_metrics` gets its timing back.
    /// Unknown phases leave their instants nil.
    func metrics(start: Int64, remoteAddress: String?) -> TimingMetrics {
        func date(_ micros: Int64) -> Date { ISOTimestamp.date(micros: micros) }
        var metrics = TimingMetrics(remoteAddress: remoteAddress)
        var cursor = start
        if blocked >= 0 {
            metrics.fetchStart = date(cursor)
            cursor += blocked
        }
        if dns >= 0 {
            metrics.domainLookupStart = date(cursor)
            metrics.domainLookupEnd = date(cursor + dns)
            cursor += dns
        }
        if connect >= 0 {
            metrics.connectStart = date(cursor)
            if ssl >= 0 {
                metrics.secureConnectionStart = date(cursor + connect - min(ssl, connect))
                metrics.secureConnectionEnd = date(cursor + connect)
            }
            metrics.connectEnd = date(cursor + connect)
            cursor += connect
        }
        metrics.requestStart = date(cursor)
        metrics.requestEnd = date(cursor + send)
        cursor += send + wait
        metrics.responseStart = date(cursor)
        metrics.responseEnd = date(cursor + receive)
        return metrics
    }

    /// Seconds to whole microseconds, clamped so that no value traps.
    static func micros(seconds: Double) -> Int64 {
        let value = (seconds * 1_000_000).rounded()
        guard value.isFinite else { return value < 0 ? -1 : Int64(Int32.max) * 1_000_000 }
        return Int64(min(max(value, -1e15), 1e15))
    }

    /// Milliseconds (as HAR writes them) to whole microseconds, clamped.
    static func micros(milliseconds: Double) -> Int64 {
        micros(seconds: milliseconds / 1000)
    }
}

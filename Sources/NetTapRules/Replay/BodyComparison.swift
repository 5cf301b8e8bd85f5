import Foundation

/// Compares request bodies for replay, and says where two bodies first differ.
enum BodyComparison {
    /// Nil when the bodies agree under `mode`, else what differs in words.
    static func difference(live: Data, recorded: Data, mode: ReplayOptions.BodyMatching) -> String? {
        switch mode {
        case .none:
            return nil
        case .exact:
            return exactDifference(live: live, recorded: recorded)
        case .json:
            guard let liveNode = try? JSONParser.parse(Array(live)),
                let recordedNode = try? JSONParser.parse(Array(recorded))
            else {
                return exactDifference(live: live, recorded: recorded)
            }
            return jsonDifference(liveNode, recordedNode, path: "$")
        case .form:
            let liveFields = formFields(live)
            let recordedFields = formFields(recorded)
            if liveFields.sorted(by: pairOrder).elementsEqual(recordedFields.sorted(by: pairOrder), by: ==) { return nil }
            let names = Set(liveFields.map(\.0)).union(recordedFields.map(\.0)).sorted()
            for name in names {
                let left = liveFields.filter { $0.0 == name }.map(\.1).sorted()
                let right = recordedFields.filter { $0.0 == name }.map(\.1).sorted()
                if left != right {
                    return "form field \(name): live \(ReplayDifference.show(left)), recorded \(ReplayDifference.show(right))"
                }
            }
            return "form fields differ"
        }
    }

    private static func pairOrder(_ lhs: (String, String), _ rhs: (String, String)) -> Bool {
        (lhs.0, lhs.1) < (rhs.0, rhs.1)
    }

    private static func exactDifference(live: Data, recorded: Data) -> String? {
        if live == recorded { return nil }
        if live.count != recorded.count {
            return "live \(live.count) bytes, recorded \(recorded.count) bytes"
        }
        let offset = zip(live, recorded).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
        return "bytes differ from offset \(offset) (both \(live.count) bytes)"
    }

    /// `name=value&...` pairs, `+` as space, percent-decoded.
    static func formFields(_ data: Data) -> [(String, String)] {
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The first place two JSON values differ (objects compared without member order,
    /// numbers by value), or nil when they are equal.
    static func jsonDifference(_ live: JSONNode, _ recorded: JSONNode, path: String) -> String? {
        switch (live.value, recorded.value) {
        case (.object(let left), .object(let right)):
            let rightByKey = Dictionary(right.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            let leftKeys = Set(left.map(\.key))
            for member in left {
                guard let other = rightByKey[member.key] else {
                    return "\(path).\(member.key): live \(JSONWriter.serialize(member.value)), recorded absent"
                }
                if let difference = jsonDifference(member.value, other, path: "\(path).\(member.key)") {
                    return difference
                }
            }
            if let missing = right.first(where: { !leftKeys.contains($0.key) }) {
                return "\(path).\(missing.key): live absent, recorded \(JSONWriter.serialize(missing.value))"
            }
            return nil
        case (.array(let left), .array(let right)):
            for (index, pair) in zip(left, right).enumerated() {
                if let difference = jsonDifference(pair.0, pair.1, path: "\(path)[\(index)]") { return difference }
            }
            if left.count != right.count {
                return "\(path): live \(left.count) elements, recorded \(right.count) elements"
            }
            return nil
        case (.number(let left), .number(let right)):
            if left == right || (Double(left) != nil && Double(left) == Double(right)) { return nil }
        case (.string(let left), .string(let right)):
            if left == right { return nil }
        case (.bool(let left), .bool(let right)):
            if left == right { return nil }
        case (.null, .null):
            return nil
        default:
            break
        }
        return "\(path): live \(JSONWriter.serialize(live)), recorded \(JSONWriter.serialize(recorded))"
    }
}

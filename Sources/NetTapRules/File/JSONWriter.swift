/// Serializes a JSON node compactly, keeping member order and the numbers as the author wrote them,
/// so that a mock body written as JSON in the rules file comes out as the same JSON value.
enum JSONWriter {
    static func serialize(_ node: JSONNode) -> String {
        var output = ""
        write(node, into: &output)
        return output
    }

    private static func write(_ node: JSONNode, into output: inout String) {
        switch node.value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                write(element, into: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { output += "," }
                writeString(member.key, into: &output)
                output += ":"
                write(member.value, into: &output)
            }
            output += "}"
        }
    }

    static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 {
                    let digits = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

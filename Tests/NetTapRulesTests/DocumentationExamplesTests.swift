import Foundation
import Testing
import NetTapRules

/// Every JSON example in docs/rules.md loads, and the error lines it shows are the loader's own.
@Suite struct DocumentationExamplesTests {
    private static let documentation: String = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/rules.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The code blocks whose opening fence is exactly `fence` ("```json", or "```" for plain ones).
    private static func blocks(fenced fence: String) -> [String] {
        var blocks: [String] = []
        var opening: Substring?
        var current: [Substring] = []
        for line in documentation.split(separator: "\n", omittingEmptySubsequences: false) {
            if opening == nil {
                if line.hasPrefix("```") {
                    opening = line
                    current = []
                }
            } else if line == "```" {
                if opening == Substring(fence) { blocks.append(current.joined(separator: "\n")) }
                opening = nil
            } else {
                current.append(line)
            }
        }
        return blocks
    }

    @Test func everyJSONExampleLoads() throws {
        let examples = Self.blocks(fenced: "```json")
        #expect(examples.count >= 10)
        for example in examples {
            // Mock files are read at load time; give every one a body so the examples stand alone.
            let options = RuleLoadOptions(platformSupportsProxyRules: true, readFile: { _ in Data("{}".utf8) })
            do {
                let rules = try RuleSet(jsonData: Data(example.utf8), baseDirectory: URL(fileURLWithPath: "/app"), options: options)
                #expect(!rules.rules.isEmpty)
            } catch {
                Issue.record("docs example does not load: \(error)\n\(example)")
            }
        }
    }

    @Test func theHostToIPPassageSaysWhatHTTPSCannotDo() {
        #expect(Self.documentation.contains(
            "TLS certificate name checking uses the URL host, so HTTPS to an IP fails unless the certificate covers it"))
    }

    @Test func errorExamplesAreTheLoadersOwnMessages() throws {
        let shown = Self.blocks(fenced: "```").flatMap { $0.split(separator: "\n").map(String.init) }
            .filter { $0.hasPrefix("rules.json:") }
        let files: [String: String] = [
            "match.port": "{\"version\": 1, \"rules\": [\n  {\"name\": \"users\", \"match\": {\"port\": 0}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}",
            "match: unknown": "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"hots\": \"a.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}",
            "preset": "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"throttle\": {\"preset\": \"4g\"}}]}\n]}",
            "trailing": "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": \"a.com\",}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}",
            "rule\"": "{\"version\": 1, \"rule\": []}",
            "proxy": "{\"version\": 1, \"rules\": [\n  {\"name\": \"corp\", \"match\": {\"host\": \"*.corp.example\"},\n   \"actions\": [{\"proxy\": {\"host\": \"p\", \"port\": 3128}}]}\n]}",
        ]
        var produced: [String] = []
        for (_, text) in files {
            do {
                _ = try RuleSet(
                    jsonData: Data(text.utf8), baseDirectory: URL(fileURLWithPath: "/"), fileName: "rules.json",
                    options: RuleLoadOptions(platformSupportsProxyRules: false))
            } catch {
                produced.append(error.description)
            }
        }
        #expect(shown.count == files.count)
        #expect(Set(shown) == Set(produced))
    }
}

import Foundation

extension RuleSet {
    /// Loads a rules file. Paths inside it (mock files, mapLocal directories, HAR files) are
    /// relative to the file's directory.
    ///
    /// ```swift
    /// do {
    ///     let rules = try RuleSet.load(contentsOf: URL(fileURLWithPath: "nettap-rules.json"))
    ///     NetTap.shared.rules.replace(with: rules)
    /// } catch {
    ///     print(error) // nettap-rules.json:12:18: rule #3 "users": actions[0].mock.status: must be ...
    /// }
    /// ```
    public static func load(contentsOf url: URL, options: RuleLoadOptions = RuleLoadOptions()) throws(RuleFileError) -> RuleSet {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RuleFileError(
                file: url.path, position: nil, field: "", message: "cannot read the rules file: \(error.localizedDescription)")
        }
        return try RuleSet(
            jsonData: data, baseDirectory: url.deletingLastPathComponent(), fileName: url.path, options: options)
    }

    /// Builds a rule set from the JSON text of a rules file.
    ///
    /// - Parameters:
    ///   - baseDirectory: where relative paths in the rules point.
    ///   - fileName: how errors name the file (nil: errors start at the line and column).
    public init(
        jsonData: Data, baseDirectory: URL, fileName: String? = nil, options: RuleLoadOptions = RuleLoadOptions()
    ) throws(RuleFileError) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(Array(jsonData))
        } catch {
            var ruleIndex: Int?
            var path = error.path[...]
            if path.count >= 2, path.first == .key("rules"), case .index(let index) = path[path.startIndex + 1] {
                ruleIndex = index
                path = path.dropFirst(2)
            }
            throw RuleFileError(
                file: fileName, position: error.position, ruleIndex: ruleIndex, field: JSONPathComponent.render(path),
                message: error.message)
        }
        let reader = RuleFileReader(file: fileName, baseDirectory: baseDirectory, options: options)
        self = try reader.readRuleSet(root)
    }
}

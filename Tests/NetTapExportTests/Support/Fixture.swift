import Foundation

/// Files under Tests/NetTapExportTests/Fixtures (copied into the test bundle).
enum Fixture {
    static func url(_ name: String) throws -> URL {
        guard let base = Bundle.module.resourceURL else { throw MissingFixture(name: name) }
        let url = base.appendingPathComponent("Fixtures").appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFixture(name: name) }
        return url
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    struct MissingFixture: Error, CustomStringConvertible {
        var name: String
        var description: String { "fixture \(name) is not in the test bundle" }
    }
}

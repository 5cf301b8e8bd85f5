/// JSON that does not parse, located by line and column (both from 1; columns count characters).
struct JSONSyntaxError: Error, Sendable, Equatable {
    var line: Int
    var column: Int
    var reason: String
}

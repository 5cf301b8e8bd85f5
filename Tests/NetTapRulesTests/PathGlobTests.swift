import Testing
import NetTapRules

@Suite struct PathGlobTests {
    private func glob(_ pattern: String) throws -> PathGlob { try PathGlob(pattern) }

    @Test func literalSegmentsCompareExactly() throws {
        let pattern = try glob("/v1/users")
        #expect(pattern.matches(path: "/v1/users"))
        #expect(!pattern.matches(path: "/v1/users/"))
        #expect(!pattern.matches(path: "/v1/Users"))
        #expect(!pattern.matches(path: "/v1"))
        #expect(!pattern.matches(path: "/v1/users/7"))
    }

    @Test func starIsExactlyOneNonEmptySegment() throws {
        let pattern = try glob("/users/*/photos")
        #expect(pattern.matches(path: "/users/42/photos"))
        #expect(pattern.matches(path: "/users/a%2Fb/photos"))
        #expect(!pattern.matches(path: "/users//photos"))
        #expect(!pattern.matches(path: "/users/1/2/photos"))
        #expect(!pattern.matches(path: "/users/photos"))
    }

    @Test func doubleStarIsAnySuffixIncludingNone() throws {
        let pattern = try glob("/static/**")
        #expect(pattern.matches(path: "/static"))
        #expect(pattern.matches(path: "/static/"))
        #expect(pattern.matches(path: "/static/js/app.js"))
        #expect(!pattern.matches(path: "/staticx/app.js"))
        #expect(!pattern.matches(path: "/other/static/app.js"))
        #expect(try glob("/**").matches(path: "/"))
        #expect(try glob("/**").matches(path: "/anything/at/all"))
    }

    @Test func starInsideASegmentMatchesWithinIt() throws {
        let png = try glob("/img/*.png")
        #expect(png.matches(path: "/img/logo.png"))
        #expect(png.matches(path: "/img/.png"))
        #expect(!png.matches(path: "/img/logo.jpg"))
        #expect(!png.matches(path: "/img/a/logo.png"))
        let middle = try glob("/f/a*b*c")
        #expect(middle.matches(path: "/f/abc"))
        #expect(middle.matches(path: "/f/aXXbYYc"))
        #expect(!middle.matches(path: "/f/acb"))
        #expect(!middle.matches(path: "/f/ab"))
    }

    @Test func rootMatchesOnlyRoot() throws {
        #expect(try glob("/").matches(path: "/"))
        #expect(!(try glob("/").matches(path: "/a")))
    }

    @Test func invalidPatternsSayWhy() {
        #expect(throws: InvalidPattern(pattern: "api/x", reason: "a path pattern must start with '/'")) {
            try PathGlob("api/x")
        }
        #expect(throws: InvalidPattern(pattern: "/a/**/b", reason: "'**' is allowed only as the last segment")) {
            try PathGlob("/a/**/b")
        }
        #expect(throws: InvalidPattern(pattern: "/a/b**", reason: "'**' is allowed only as the last segment")) {
            try PathGlob("/a/b**")
        }
    }
}

import Foundation
import NetTapCore
import Testing
import NetTapRules

@Suite struct MapLocalActionTests {
    private let bundle = URL(fileURLWithPath: "/bundle")

    /// A reader over an in-memory file table, recording what was asked for.
    private final class Files: @unchecked Sendable {
        var contents: [String: Data]
        var asked: [String] = []
        init(_ contents: [String: String]) { self.contents = contents.mapValues { Data($0.utf8) } }
        func read(_ url: URL) -> Data? {
            asked.append(url.path)
            return contents[url.path]
        }
    }

    private func directoryAction(prefix: String = "/static/") -> MapLocalAction {
        MapLocalAction(source: .directory(bundle, pathPrefix: prefix, indexFile: "index.html"))
    }

    @Test func directoryMapsThePathUnderThePrefix() {
        let files = Files(["/bundle/js/app.js": "console.log(1)", "/bundle/index.html": "<html>"])
        let response = directoryAction().response(forPath: "/static/js/app.js", read: files.read)
        #expect(response.statusCode == 200)
        #expect(response.body == Data("console.log(1)".utf8))
        #expect(response.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(response.headers["Content-Length"] == "14")
        let index = directoryAction().response(forPath: "/static/", read: files.read)
        #expect(index.body == Data("<html>".utf8))
        #expect(index.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(files.asked == ["/bundle/js/app.js", "/bundle/index.html"])
    }

    @Test func percentEncodedNamesAreDecoded() {
        let files = Files(["/bundle/my file.txt": "hi"])
        #expect(directoryAction().response(forPath: "/static/my%20file.txt", read: files.read).statusCode == 200)
    }

    @Test func missingFileIs404() {
        let files = Files([:])
        let response = directoryAction().response(forPath: "/static/nope.png", read: files.read)
        #expect(response.statusCode == 404)
        #expect(String(decoding: response.body, as: UTF8.self) == "NetTap mapLocal: no file /bundle/nope.png for /static/nope.png\n")
    }

    @Test(arguments: [
        "/static/../etc/passwd", "/static/a/../../secret", "/static/%2e%2e/secret", "/static/..%2Fsecret",
        "/static/./x", "/static/a%5C..%5Csecret",
    ])
    func traversalIsRefusedWithoutReading(path: String) {
        let files = Files(["/etc/passwd": "root", "/secret": "s"])
        let response = directoryAction().response(forPath: path, read: files.read)
        #expect(response.statusCode == 403)
        #expect(files.asked.isEmpty)
    }

    @Test func singleFileServesEveryMatchingPath() {
        let files = Files(["/data/users.json": "[]"])
        let action = MapLocalAction(source: .file(URL(fileURLWithPath: "/data/users.json")), statusCode: 203, headers: ["X-From": "disk"])
        let response = action.response(forPath: "/anything", read: files.read)
        #expect(response.statusCode == 203)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-From"] == "disk")
    }

    @Test func contentTypesFollowTheExtension() {
        #expect(ContentTypes.type(forFileName: "a.PNG") == "image/png")
        #expect(ContentTypes.type(forFileName: "a.woff2") == "font/woff2")
        #expect(ContentTypes.type(forFileName: "archive.tar.gz") == "application/gzip")
        #expect(ContentTypes.type(forFileName: "README") == "application/octet-stream")
        #expect(ContentTypes.type(forFileName: ".env") == "application/octet-stream")
    }

    @Test func realDirectoryOnDiskAndSymlinkEscapeRefused() throws {
        let root = try TemporaryDirectory()
        try root.write("site/index.html", "<h1>offline</h1>")
        try root.write("site/css/a.css", "body{}")
        try root.write("outside.txt", "secret")
        try FileManager.default.createSymbolicLink(
            at: root.url.appendingPathComponent("site/link.txt"), withDestinationURL: root.url.appendingPathComponent("outside.txt"))
        let rules = try ruleSet(
            #"{"version": 1, "rules": [{"match": {"path": "/app/**"}, "actions": [{"mapLocal": {"directory": "site", "pathPrefix": "/app"}}]}]}"#,
            directory: root.url)
        func serve(_ path: String) -> RuleResponse? {
            guard case .mapLocal(let action, let requestPath) = rules.evaluate(request("GET", "https://a.com" + path)).terminal else {
                return nil
            }
            return action.response(forPath: requestPath)
        }
        #expect(serve("/app")?.body == Data("<h1>offline</h1>".utf8))
        #expect(serve("/app/css/a.css")?.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(serve("/app/css")?.statusCode == 404)
        #expect(serve("/app/link.txt")?.statusCode == 404)
        #expect(serve("/app/../outside.txt")?.statusCode == 403)
    }
}

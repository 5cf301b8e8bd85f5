import Foundation
import NetTapCore

/// Serves the request from a local file, or from a directory mapped under a path prefix
/// (an offline web bundle: `/static/app.js` -> `bundle/app.js`).
///
/// Files are read when the request comes (edit a file, the next request sees it). The response is a
/// pure function of the request path and a file reader, so it is testable without a disk:
///
/// ```swift
/// let response = action.response(forPath: "/static/app.js") { url in try? Data(contentsOf: url) }
/// ```
///
/// A request can never read outside the directory: a path with a `..` or `.` segment (also when
/// percent-encoded) gets 403, and the default reader refuses files whose real path (symbolic links
/// resolved) lies outside the directory. A missing file gets 404.
public struct MapLocalAction: Sendable, Hashable, CustomStringConvertible {
    public enum Source: Sendable, Hashable {
        case file(URL)
        /// The directory, the path prefix removed from the request path, and the file served for
        /// a path that ends at a directory (`index.html`).
        case directory(URL, pathPrefix: String, indexFile: String)
    }

    public var source: Source
    public var statusCode: Int
    /// Headers added to the response (a `Content-Type` here overrides the one from the extension).
    public var headers: HTTPHeaders

    public init(source: Source, statusCode: Int = 200, headers: HTTPHeaders = HTTPHeaders()) {
        self.source = source
        self.statusCode = statusCode
        self.headers = headers
    }

    /// Why a request path was refused.
    public enum Refusal: Error, Sendable, Hashable {
        case escapesDirectory(String)
    }

    /// The file that serves `path` (the request's percent-encoded path), or why there is none.
    public func fileURL(forPath path: String) -> Result<URL, Refusal> {
        switch source {
        case .file(let url):
            return .success(url)
        case .directory(let directory, let prefix, let indexFile):
            var relative = Substring(path)
            if relative.hasPrefix(prefix) {
                relative = relative.dropFirst(prefix.count)
            }
            let decoded = String(relative).removingPercentEncoding ?? String(relative)
            var segments: [String] = []
            for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
                if segment == ".." || segment == "." || segment.contains("\\") || segment.contains("\0") {
                    return .failure(.escapesDirectory(path))
                }
                segments.append(String(segment))
            }
            if segments.isEmpty || decoded.hasSuffix("/") {
                segments.append(indexFile)
            }
            var url = directory
            for segment in segments {
                url.appendPathComponent(segment, isDirectory: false)
            }
            return .success(url)
        }
    }

    /// The response for a request path, reading files through `read` (nil means "no such file").
    public func response(forPath path: String, read: (URL) -> Data?) -> RuleResponse {
        switch fileURL(forPath: path) {
        case .failure:
            return RuleResponse(
                statusCode: 403, headers: ["Content-Type": "text/plain; charset=utf-8"],
                body: Data("NetTap mapLocal: the path \(path) leads outside the mapped directory\n".utf8))
        case .success(let url):
            guard let data = read(url) else {
                return RuleResponse(
                    statusCode: 404, headers: ["Content-Type": "text/plain; charset=utf-8"],
                    body: Data("NetTap mapLocal: no file \(url.path) for \(path)\n".utf8))
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: ContentTypes.type(forFileName: url.lastPathComponent))
            for field in self.headers {
                headers.set(name: field.name, value: field.value)
            }
            headers.set(name: "Content-Length", value: String(data.count))
            return RuleResponse(statusCode: statusCode, headers: headers, body: data)
        }
    }

    /// The response read from the file system, refusing files outside the mapped directory even
    /// through symbolic links.
    public func response(forPath path: String) -> RuleResponse {
        response(forPath: path) { url in self.readConfined(url) }
    }

    private func readConfined(_ url: URL) -> Data? {
        if case .directory(let directory, _, _) = source {
            let root = directory.resolvingSymlinksInPath().standardizedFileURL.path
            let real = url.resolvingSymlinksInPath().standardizedFileURL.path
            let rootWithSlash = root.hasSuffix("/") ? root : root + "/"
            guard real.hasPrefix(rootWithSlash) else { return nil }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return try? Data(contentsOf: url)
    }

    public var description: String {
        switch source {
        case .file(let url): return "mapLocal file \(url.path)"
        case .directory(let url, let prefix, _): return "mapLocal \(prefix) -> directory \(url.path)"
        }
    }
}

#if !canImport(Darwin)
import Dispatch
import Foundation
import FoundationNetworking
import NetTapCore

/// Reads the request body that corelibs keeps inside a task, where `URLProtocol` cannot see it:
/// an upload task's data or file, and a request's body stream.
///
/// corelibs stores it in `URLSessionTask.knownBody`, an internal `_Body?`
/// (URLSessionTask.swift: `enum _Body { case none, data(DispatchData), file(URL), stream(InputStream) }`),
/// and its HTTP loader reads it from there. This reads it through `Mirror`, which only looks: if a
/// toolchain renames or reshapes the property, `body(of:)` returns nil and the body is recorded as
/// unavailable, as before. `CorelibsAssumptionTests` checks the shape so that such a change is seen.
enum TaskBodyReader {
    enum Body {
        case data(DispatchData)
        case file(URL)
        case stream(InputStream)

        /// At most `cap` bytes, with the whole size; nil for a stream, which only URLSession may read.
        func captured(cap: Int, contentType: String?) -> RequestBodySource {
            switch self {
            case .data(let data):
                var prefix = Data(count: min(cap, data.count))
                prefix.withUnsafeMutableBytes { buffer in data.copyBytes(to: buffer, from: 0..<buffer.count) }
                return .captured(CapturedBody(data: prefix, size: Int64(data.count), contentType: contentType, isTruncated: data.count > prefix.count))
            case .file(let url):
                // Read now: apps often delete an uploaded file as soon as the upload ends.
                return .captured(RawCapture.readPrefix(of: url, cap: cap, contentType: contentType))
            case .stream:
                return .unavailable(size: nil, reason: "the body was an input stream that URLSession read directly")
            }
        }

        /// The whole body as an upload, for a rule that sends the request again; nil for a stream.
        var upload: UploadBody? {
            switch self {
            case .data(let data): return .data(Data(data))
            case .file(let url): return .file(url)
            case .stream: return nil
            }
        }
    }

    static func body(of task: URLSessionTask) -> Body? {
        guard let known = storedProperty("knownBody", of: task) else { return nil }
        // `_Body?`: unwrap the optional, then read the enum case and its payload.
        let optional = Mirror(reflecting: known)
        let unwrapped: Any? = optional.displayStyle == .optional ? optional.children.first?.value : known
        guard let value = unwrapped else { return nil }
        let body = Mirror(reflecting: value)
        guard body.displayStyle == .enum, let payload = body.children.first else { return nil }
        switch (payload.label, payload.value) {
        case ("data", let data as DispatchData): return .data(data)
        case ("file", let url as URL): return .file(url)
        case ("stream", let stream as InputStream): return .stream(stream)
        default: return nil
        }
    }

    private static func storedProperty(_ name: String, of subject: AnyObject) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == name }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }
}
#endif

import Foundation

/// The body of an upload task as the app handed it over, kept apart from what is captured (which is
/// capped): a rule that re-issues the request (a rewrite, a proxy) must send all of it again, and a
/// throttle paces it by its size. URLSession keeps an upload's body out of its request, where
/// `URLProtocol` cannot see it on Linux, so NetTapSession remembers it on the exchange's recorder.
enum UploadBody: @unchecked Sendable {
    case data(Data)
    case file(URL)

    /// Its size in bytes, if known.
    var size: Int? {
        switch self {
        case .data(let data):
            return data.count
        case .file(let url):
            return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        }
    }

    /// The bytes, for a request that is sent again; a file is mapped rather than read into memory.
    func bytes() -> Data? {
        switch self {
        case .data(let data):
            return data
        case .file(let url):
            return try? Data(contentsOf: url, options: .alwaysMapped)
        }
    }
}

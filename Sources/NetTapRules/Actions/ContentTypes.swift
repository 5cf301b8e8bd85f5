/// Media types by file extension, for files served by `mapLocal` and mock `file` bodies.
public enum ContentTypes {
    /// The media type for a file name's extension (case ignored), `application/octet-stream` when unknown.
    public static func type(forFileName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        return table[name[name.index(after: dot)...].lowercased()] ?? fallback
    }

    public static let fallback = "application/octet-stream"

    static let table: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json", "map": "application/json",
        "har": "application/json", "xml": "application/xml", "txt": "text/plain; charset=utf-8",
        "csv": "text/csv; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "heic": "image/heic",
        "ico": "image/x-icon", "bmp": "image/bmp", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "wasm": "application/wasm", "woff": "font/woff", "woff2": "font/woff2",
        "ttf": "font/ttf", "otf": "font/otf", "mp4": "video/mp4", "webm": "video/webm",
        "mov": "video/quicktime", "m3u8": "application/vnd.apple.mpegurl", "mp3": "audio/mpeg",
        "m4a": "audio/mp4", "wav": "audio/wav", "ogg": "audio/ogg", "plist": "application/x-plist",
        "pb": "application/x-protobuf", "bin": "application/octet-stream",
    ]
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fast loopback server the capture benchmark talks to: nginx when it is installed (so that
/// the client side is what is measured), otherwise NetTap's built-in server.
final class LoopbackTarget: @unchecked Sendable {
    let url: URL
    let description: String
    private let stopAction: () -> Void

    private init(url: URL, description: String, stop: @escaping () -> Void) {
        self.url = url
        self.description = description
        self.stopAction = stop
    }

    func stop() { stopAction() }

    /// A 1 KiB body: small enough that the client side dominates.
    static let payload = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    static func start(preferNginx: Bool) throws -> LoopbackTarget {
        if preferNginx, let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        {
            return try startNginx(at: nginx)
        }
        return try startBuiltIn()
    }

    private static func startNginx(at binary: String) throws -> LoopbackTarget {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nettap-bench-nginx-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try payload.write(to: root.appendingPathComponent("payload"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        let port = try freePort()
        let configuration = """
            worker_processes 1;
            daemon off;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log;
            events { worker_connections 4096; }
            http {
                access_log off;
                keepalive_requests 1000000;
                keepalive_timeout 120s;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    default_type application/octet-stream;
                }
            }
            """
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", configurationFile.path, "-p", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard waitUntilListening(port: port) else {
            process.terminate()
            throw BenchError("nginx did not start listening on 127.0.0.1:\(port); see \(directory.path)/error.log")
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)/payload") else { throw BenchError("bad loopback URL") }
        return LoopbackTarget(url: url, description: "nginx") {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    private static func startBuiltIn() throws -> LoopbackTarget {
        let server = try BuiltInPayloadServer(payload: payload)
        return LoopbackTarget(url: server.url, description: "NetTapServer (built-in)") { server.stop() }
    }

    /// A port that was free a moment ago: bind to port 0 and read what the kernel chose.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw BenchError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Polls with connect() until something listens; bounded to about five seconds.
    static func waitUntilListening(port: Int) -> Bool {
        for _ in 0..<500 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(descriptor)
            if connected == 0 { return true }
            usleep(10_000)
        }
        return false
    }
}

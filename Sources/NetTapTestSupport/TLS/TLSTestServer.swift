import Foundation

/// An HTTPS loopback server whose certificate Linux URLSession trusts, for tests of TLS capture.
///
/// Linux URLSession trusts only the system CA store (see docs: linux-urlsession-facts.md, fact 7),
/// so the first user in a process generates a throwaway CA and a server certificate for
/// `127.0.0.1`, `::1` and `localhost` (with the `openssl` CLI), installs the CA as
/// `/usr/local/share/ca-certificates/nettap-test-<pid>-<random>.crt`, runs
/// `update-ca-certificates`, and starts a Python `ssl` server (see `TLSTestServer.script`).
/// Users share that one instance; when the last one releases it, the child is killed, the CA
/// file removed and `update-ca-certificates --fresh` run. Store changes are serialised across
/// processes with a lock file. CA files left by crashed test processes are removed on the next start.
///
/// Needs root, `openssl`, `python3` and `update-ca-certificates`; if any is missing, `init`
/// throws naming exactly what is missing (tests fail, never skip silently).
///
/// ```swift
/// let tls = try TLSTestServer()
/// defer { tls.release() }
/// let session = URLSession(configuration: .ephemeral)   // a session created after the CA install
/// let (data, _) = try await session.data(from: tls.url("/bytes/4096?seed=9"))
/// #expect(data == ScenarioBytes.bytes(count: 4096, seed: 9))
/// ```
public final class TLSTestServer: @unchecked Sendable {
    /// A missing prerequisite or a failed setup step, said plainly.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { "TLSTestServer: \(message)" }
    }

    private let instance: Instance
    private let released = NSLock()
    private var isReleased = false

    /// Joins the shared server, starting it (and installing the CA) if this is the first user.
    public init() throws {
        instance = try Registry.acquire()
    }

    deinit {
        release()
    }

    /// `https://127.0.0.1:PORT`.
    public var baseURL: URL { instance.baseURL }
    public var port: Int { instance.port }
    /// The PEM file of the test CA (for clients that take a CA file, such as curl's `--cacert`).
    public var caCertificateFile: URL { instance.material.caCertificate }

    /// Where the CA sits in the system store while the server runs.
    public var installedCertificateFile: URL { instance.installedCA }

    /// The URL of `pathAndQuery` on this server.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }

    /// Leaves the shared server; the last release stops it and removes the CA from the store.
    /// Call it (e.g. in `defer`) so the server outlives every request of the test.
    public func release() {
        released.lock()
        let first = !isReleased
        isReleased = true
        released.unlock()
        if first { Registry.release() }
    }
}

extension TLSTestServer {
    /// Reference-counts the one running instance per process.
    private enum Registry {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var instance: Instance?
        nonisolated(unsafe) private static var users = 0

        static func acquire() throws -> Instance {
            lock.lock()
            defer { lock.unlock() }
            if let instance {
                users += 1
                return instance
            }
            let started = try Instance.start()
            instance = started
            users = 1
            return started
        }

        static func release() {
            lock.lock()
            defer { lock.unlock() }
            users -= 1
            guard users == 0, let running = instance else { return }
            instance = nil
            running.stop()
        }
    }

    /// Paths of the generated key material, kept for the whole process so that a URLSession that
    /// cached the CA store keeps trusting the server across stop and start.
    struct Material: Sendable {
        var directory: URL
        var caCertificate: URL
        var serverCertificate: URL
        var serverKey: URL
        var script: URL
    }

    final class Instance: @unchecked Sendable {
        let material: Material
        let port: Int
        let installedCA: URL
        private let child: ChildProcess
        private let tools: Tools

        var baseURL: URL { URL(string: "https://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

        private init(material: Material, port: Int, installedCA: URL, child: ChildProcess, tools: Tools) {
            self.material = material
            self.port = port
            self.installedCA = installedCA
            self.child = child
            self.tools = tools
        }

        static func start() throws -> Instance {
            let tools = try Tools.locate()
            let material = try MaterialCache.material(tools: tools)
            let installed = try CAStore.install(material.caCertificate, tools: tools)
            do {
                let child = try ChildProcess(
                    executable: tools.python3,
                    arguments: ["-u", material.script.path, material.serverCertificate.path, material.serverKey.path])
                guard let line = try child.readLine(timeout: 30), line.hasPrefix("PORT "),
                      let port = Int(line.dropFirst(5)) else {
                    child.kill()
                    throw Failure(message: "the Python TLS server did not report its port; stderr: \(child.standardErrorText)")
                }
                return Instance(material: material, port: port, installedCA: installed, child: child, tools: tools)
            } catch {
                try? CAStore.remove(installed, tools: tools)
                throw error
            }
        }

        func stop() {
            child.kill()
            _ = try? child.waitForExit(timeout: 10)
            try? CAStore.remove(installedCA, tools: tools)
        }
    }

    /// The executables the server needs, found on PATH (and /usr/sbin, where Debian keeps
    /// update-ca-certificates), after checking that we are root.
    struct Tools: Sendable {
        var openssl: String
        var python3: String
        var updateCACertificates: String

        static func locate() throws -> Tools {
            var missing: [String] = []
            if POSIX.effectiveUserID != 0 {
                missing.append("root privileges (running as uid \(POSIX.effectiveUserID); installing a CA into the system trust store needs root)")
            }
            let openssl = find("openssl")
            let python3 = find("python3")
            let update = find("update-ca-certificates")
            if openssl == nil { missing.append("the openssl command (apt-get install openssl)") }
            if python3 == nil { missing.append("the python3 command (apt-get install python3)") }
            if update == nil { missing.append("the update-ca-certificates command (apt-get install ca-certificates)") }
            guard missing.isEmpty, let openssl, let python3, let update else {
                throw Failure(message: "cannot start: missing " + missing.joined(separator: "; "))
            }
            return Tools(openssl: openssl, python3: python3, updateCACertificates: update)
        }

        static func find(_ name: String) -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            let directories = path.split(separator: ":").map(String.init) + ["/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/bin", "/bin"]
            return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        /// Runs a tool to completion, throwing with its stderr if it fails.
        func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws {
            let child = try ChildProcess(executable: executable, arguments: arguments)
            let termination: ChildProcess.Termination
            do {
                termination = try child.waitForExit(timeout: timeout)
            } catch {
                child.kill()
                throw Failure(message: "'\(child.commandLine)' did not finish within \(timeout) s")
            }
            guard termination == .exited(0) else {
                throw Failure(message: "'\(child.commandLine)' failed with \(termination): \(child.standardErrorText)")
            }
        }
    }
}

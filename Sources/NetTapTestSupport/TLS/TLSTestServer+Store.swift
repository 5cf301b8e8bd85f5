import Foundation

extension TLSTestServer {
    /// Generates the CA, server key and certificate once per process with the openssl CLI.
    enum MaterialCache {
        nonisolated(unsafe) private static var cached: Material?
        private static let lock = NSLock()
        static let directoryPrefix = "nettap-tls-"

        static func material(tools: Tools) throws -> Material {
            lock.lock()
            defer { lock.unlock() }
            if let cached { return cached }
            let base = FileManager.default.temporaryDirectory
            removeStaleDirectories(in: base)
            let directory = base.appendingPathComponent("\(directoryPrefix)\(POSIX.currentProcessID)-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let material = Material(
                directory: directory, caCertificate: directory.appendingPathComponent("ca.crt"),
                serverCertificate: directory.appendingPathComponent("server.crt"),
                serverKey: directory.appendingPathComponent("server.key"),
                script: directory.appendingPathComponent("tls_server.py"))
            let caKey = directory.appendingPathComponent("ca.key").path
            let request = directory.appendingPathComponent("server.csr").path
            let extensions = directory.appendingPathComponent("server.ext")
            try Data(TLSTestServer.script.utf8).write(to: material.script)
            try Data("""
                subjectAltName = IP:127.0.0.1, IP:::1, DNS:localhost
                basicConstraints = critical, CA:FALSE
                keyUsage = critical, digitalSignature, keyEncipherment
                extendedKeyUsage = serverAuth

                """.utf8).write(to: extensions)
            let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try tools.run(tools.openssl, ["req", "-x509"] + curve + [
                "-keyout", caKey, "-out", material.caCertificate.path, "-days", "3",
                "-subj", "/CN=NetTap Test CA \(directory.lastPathComponent)",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
            try tools.run(tools.openssl, ["req"] + curve + [
                "-keyout", material.serverKey.path, "-out", request, "-subj", "/CN=localhost",
            ])
            try tools.run(tools.openssl, [
                "x509", "-req", "-in", request, "-CA", material.caCertificate.path, "-CAkey", caKey,
                "-CAcreateserial", "-out", material.serverCertificate.path, "-days", "3",
                "-extfile", extensions.path,
            ])
            cached = material
            return material
        }

        /// Removes material directories of test processes that no longer run.
        private static func removeStaleDirectories(in base: URL) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
            for name in names where name.hasPrefix(directoryPrefix) {
                if let pid = CAStore.ownerProcess(of: name, prefix: directoryPrefix), !POSIX.processExists(pid) {
                    try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
                }
            }
        }
    }

    /// Adds and removes the test CA in the system store, one process at a time.
    enum CAStore {
        static let directory = URL(fileURLWithPath: "/usr/local/share/ca-certificates")
        static let filePrefix = "nettap-test-"
        static let lockPath = "/tmp/nettap-ca-store.lock"

        /// Copies `certificate` into the store and refreshes it. Returns the installed file.
        static func install(_ certificate: URL, tools: Tools) throws -> URL {
            let lock = try POSIX.lockFile(lockPath)
            defer { POSIX.unlockFile(lock) }
            let removedStale = removeStaleFiles()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let target = directory.appendingPathComponent(
                "\(filePrefix)\(POSIX.currentProcessID)-\(UUID().uuidString.prefix(8).lowercased()).crt")
            do {
                try FileManager.default.copyItem(at: certificate, to: target)
            } catch {
                throw Failure(message: "cannot install the test CA as \(target.path): \(error)")
            }
            do {
                try tools.run(tools.updateCACertificates, removedStale ? ["--fresh"] : [])
            } catch {
                try? FileManager.default.removeItem(at: target)
                throw error
            }
            return target
        }

        /// Removes `installed` from the store and rebuilds the store without it.
        static func remove(_ installed: URL, tools: Tools) throws {
            let lock = try POSIX.lockFile(lockPath)
            defer { POSIX.unlockFile(lock) }
            try? FileManager.default.removeItem(at: installed)
            try tools.run(tools.updateCACertificates, ["--fresh"])
        }

        /// Deletes CA files left by test processes that died without cleaning up. True if any went.
        private static func removeStaleFiles() -> Bool {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            var removed = false
            for name in names where name.hasPrefix(filePrefix) {
                if let pid = ownerProcess(of: name, prefix: filePrefix), !POSIX.processExists(pid) {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
                    removed = true
                }
            }
            return removed
        }

        /// The process id in `<prefix><pid>-<random>...`, if the name has one.
        static func ownerProcess(of name: String, prefix: String) -> Int32? {
            name.dropFirst(prefix.count).split(separator: "-").first.flatMap { Int32($0) }
        }
    }
}

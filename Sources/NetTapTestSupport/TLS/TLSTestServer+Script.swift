extension TLSTestServer {
    /// The HTTPS server run as a child process: Python's `ssl` over a threading `http.server`.
    /// Routes: GET /bytes/N?seed=S (the ScenarioBytes generator), POST|GET /echo (the body back),
    /// GET /status/N, GET /redirect?to=PATH (302). It prints `PORT <n>` once listening.
    public static let script = #"""
    import http.server, ssl, sys, urllib.parse

    MASK = (1 << 64) - 1

    def scenario_bytes(count, seed):
        # Same generator as ScenarioBytes: splitmix64 seeding, xorshift64*, little-endian words.
        z = (seed + 0x9E3779B97F4A7C15) & MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        x = (z ^ (z >> 31)) or 0x9E3779B97F4A7C15
        out = bytearray()
        while len(out) < count:
            x ^= x >> 12
            x ^= (x << 25) & MASK
            x ^= x >> 27
            out += ((x * 0x2545F4914F6CDD1D) & MASK).to_bytes(8, "little")
        return bytes(out[:count])

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body=b"", content_type="text/plain", extra=()):
            self.send_response(status)
            for name, value in extra:
                self.send_header(name, value)
            if status not in (204, 304):
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status not in (204, 304) and self.command != "HEAD":
                self.wfile.write(body)

        def route(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            parts = url.path.strip("/").split("/")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if parts[0] == "bytes" and len(parts) == 2 and parts[1].isdigit():
                data = scenario_bytes(int(parts[1]), int(query.get("seed", "0")))
                return self.answer(200, data, "application/octet-stream")
            if parts == ["echo"]:
                return self.answer(200, body, "application/octet-stream")
            if parts[0] == "status" and len(parts) == 2 and parts[1].isdigit():
                code = int(parts[1])
                return self.answer(code, ("%d\n" % code).encode())
            if parts == ["redirect"]:
                return self.answer(302, b"redirect\n", extra=[("Location", query.get("to", "/echo"))])
            return self.answer(404, b"not found\n")

        do_GET = do_POST = do_PUT = do_HEAD = route

    def main():
        cert, key = sys.argv[1], sys.argv[2]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        # Handshakes happen on the connection threads, so one stuck client cannot block accept.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        print("PORT %d" % server.server_address[1], flush=True)
        server.serve_forever()

    main()
    """#
}

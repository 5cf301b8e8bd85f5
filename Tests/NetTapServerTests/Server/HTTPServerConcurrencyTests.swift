import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetTapCore
import NetTapServer
import NetTapTestSupport
import Testing

/// Many clients at once, every body checked byte for byte.
@Suite struct HTTPServerConcurrencyTests {
    @Test func sixtyFourKeepAliveClientsGetTheirOwnBodies() throws {
        let scenario = try ScenarioServer()
        let clients = 64
        let requestsPerClient = 40
        let failures = Protected<[String]>([])
        let completed = Protected(0)
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let connection = try RawHTTPConnection(port: scenario.port, timeout: 30)
                    for request in 0..<requestsPerClient {
                        let seed = UInt64(client * 1_000 + request)
                        let size = (client * 7_919 + request * 104_729) % 70_000
                        let route = request % 3 == 0 ? "chunked" : "bytes"
                        try connection.send("GET /\(route)/\(size)?seed=\(seed) HTTP/1.1\r\nHost: t\r\n\r\n")
                        let response = try connection.readResponse()
                        if response.status != 200 || response.body != ScenarioBytes.bytes(count: size, seed: seed) {
                            failures.withLock { $0.append("client \(client) request \(request): status \(response.status), \(response.body.count) bytes") }
                        }
                        completed.withLock { $0 += 1 }
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "clients finished")
        #expect(failures.current == [])
        #expect(completed.current == clients * requestsPerClient)
        #expect(scenario.receivedRequests.count == clients * requestsPerClient)
        #expect(Set(scenario.receivedRequests.map(\.remotePort)).count == clients, "one connection per client")
    }

    @Test func concurrentURLSessionRequestsAreAllServedExactly() async throws {
        let scenario = try ScenarioServer()
        let session = TestSessions.plain()
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    var allMatch = true
                    for round in 0..<4 {
                        let seed = index * 10 + round
                        let size = 1 + (index * 3_571 + round * 911) % 200_000
                        let (data, response) = try await session.exchange(scenario.url("/bytes/\(size)?seed=\(seed)"))
                        allMatch = allMatch && response.statusCode == 200
                            && data == ScenarioBytes.bytes(count: size, seed: UInt64(seed))
                    }
                    return (index, allMatch)
                }
            }
            var collected: [Int: Bool] = [:]
            for try await (index, ok) in group { collected[index] = ok }
            return collected
        }
        #expect(results.count == 64)
        #expect(results.values.allSatisfy { $0 }, "mismatched: \(results.filter { !$0.value }.keys.sorted())")
        #expect(scenario.receivedRequests.count == 256)
    }
}

import Testing

@testable import NetTapStore

@Suite("StoreLocation")
struct StoreLocationTests {
    @Test("--store wins, then NETTAP_STORE, then ./nettap.sqlite; empty values do not count")
    func precedence() {
        let environment = ["NETTAP_STORE": "/var/env.sqlite"]
        #expect(StoreLocation.resolve(option: "/tmp/option.sqlite", environment: environment) == "/tmp/option.sqlite")
        #expect(StoreLocation.resolve(option: nil, environment: environment) == "/var/env.sqlite")
        #expect(StoreLocation.resolve(option: "", environment: environment) == "/var/env.sqlite")
        #expect(StoreLocation.resolve(option: nil, environment: [:]) == "./nettap.sqlite")
        #expect(StoreLocation.resolve(option: nil, environment: ["NETTAP_STORE": ""]) == "./nettap.sqlite")
    }

    @Test("a read-only tool gets storeNotFound naming the path, and no file is created")
    func missingStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("none.sqlite")
        let error = try #require(throws: ExchangeStoreError.self) {
            _ = try ExchangeStore(path: path, configuration: .init(createIfMissing: false))
        }
        #expect(error.description.contains(path))
        #expect(error.description.contains("NETTAP_STORE"))
    }
}

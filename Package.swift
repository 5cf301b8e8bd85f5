// swift-tools-version:6.0
import PackageDescription

// NetTap: capture, shape and understand an app's own HTTP(S) traffic from inside the process.
// No outside Swift packages: only the toolchain and system C libraries (sqlite3, zlib).
let package = Package(
    name: "NetTap",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "NetTap", targets: ["NetTapCapture", "NetTapCore"]),
        .library(name: "NetTapCore", targets: ["NetTapCore"]),
        .library(name: "NetTapCapture", targets: ["NetTapCapture"]),
        .library(name: "NetTapRules", targets: ["NetTapRules"]),
        .library(name: "NetTapStore", targets: ["NetTapStore"]),
        .library(name: "NetTapExport", targets: ["NetTapExport"]),
        .library(name: "NetTapServer", targets: ["NetTapServer"]),
        .executable(name: "nettap", targets: ["nettap"]),
        .executable(name: "nettap-bench", targets: ["nettap-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "NetTapCore"),
        .target(name: "NetTapRules", dependencies: ["NetTapCore"]),
        .target(name: "NetTapCapture", dependencies: ["NetTapCore", "NetTapRules", "NetTapExport"]),
        .target(name: "NetTapStore", dependencies: ["NetTapCore", "CSQLite", "CZlib"]),
        .target(name: "NetTapExport", dependencies: ["NetTapCore"]),
        .target(name: "NetTapServer", dependencies: ["NetTapCore", "CZlib"]),
        .target(
            name: "NetTapTestSupport",
            dependencies: ["NetTapCore", "NetTapServer", "NetTapCapture"]
        ),
        .executableTarget(
            name: "nettap",
            dependencies: ["NetTapCore", "NetTapCapture", "NetTapRules", "NetTapStore", "NetTapExport", "NetTapServer"]
        ),
        .executableTarget(
            name: "nettap-bench",
            dependencies: ["NetTapCore", "NetTapCapture", "NetTapStore", "NetTapExport", "NetTapServer", "NetTapRules"]
        ),
        .testTarget(name: "NetTapCoreTests", dependencies: ["NetTapCore"]),
        .testTarget(name: "NetTapCaptureTests", dependencies: ["NetTapCapture", "NetTapTestSupport"]),
        .testTarget(name: "NetTapServerTests", dependencies: ["NetTapServer", "NetTapTestSupport"]),
        .testTarget(name: "NetTapStoreTests", dependencies: ["NetTapStore", "NetTapTestSupport"]),
        .testTarget(name: "NetTapExportTests", dependencies: ["NetTapExport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "NetTapRulesTests", dependencies: ["NetTapRules", "NetTapCapture", "NetTapTestSupport"]),
        .testTarget(name: "NettapCLITests", dependencies: ["NetTapTestSupport", "NetTapExport"]),
    ],
    swiftLanguageModes: [.v6]
)

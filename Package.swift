// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "LMDB", targets: ["LMDB"]),
        .executable(name: "strata-demo", targets: ["StrataDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        .target(
            name: "Strata",
            dependencies: ["LMDB", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(name: "StrataDemo", dependencies: ["Strata"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "LMDB", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

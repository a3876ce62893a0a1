// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "LMDB", targets: ["LMDB"]),
        .executable(name: "strata", targets: ["StrataCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        .executableTarget(
            name: "StrataCommand",
            dependencies: ["Strata", "LMDB", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "LMDB", "TestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "StrataCommandTests", dependencies: ["StrataCommand", "Strata", "LMDB", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

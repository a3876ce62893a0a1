// swift-tools-version: 6.1
// libFuzzer targets for Strata, built from the root package's sources (a path dependency) with
// `-sanitize=fuzzer`. Run them with `tools/fuzz [target] [seconds]` from the repository root.
// `@testable import Strata` reaches internal decoders: SwiftPM debug builds enable testing. Each
// target's main.swift hands its function to libFuzzer's `LLVMFuzzerRunDriver`.
import PackageDescription

let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Strata", path: "..")],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(name: "FuzzPredicate", dependencies: ["CFuzzer", .product(name: "Strata", package: "Strata")]),
        .executableTarget(name: "FuzzJSON", dependencies: ["CFuzzer", .product(name: "Strata", package: "Strata")]),
        .executableTarget(name: "FuzzRecord", dependencies: ["CFuzzer", .product(name: "Strata", package: "Strata")]),
        .executableTarget(name: "FuzzOrderedKey", dependencies: ["CFuzzer", .product(name: "Strata", package: "Strata")]),
        .executableTarget(name: "FuzzReplicate", dependencies: ["CFuzzer", .product(name: "Strata", package: "Strata")]),
    ],
    swiftLanguageModes: [.v6]
)

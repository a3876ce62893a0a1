// swift-tools-version: 6.1
import PackageDescription

/// What every feature target builds on.
let featureDependencies: [Target.Dependency] = [
    "StrataFormat", "StrataStorage", "StrataQuery", "LMDB", .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "LMDB", targets: ["LMDB"]),
        // The web inspector behind `strata studio`, for the benchmarks (a product of its own: Strata never names it).
        .library(name: "StrataStudio", targets: ["StrataStudio"]),
        .executable(name: "strata", targets: ["StrataCommand"]),
        // `strata studio` runs this program: the web server stays out of `strata` (its start-up, Benchmarks/Results).
        .executable(name: "strata-studio", targets: ["StrataStudioTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The studio's web server (StrataStudio and the tool only: the Strata product never names it).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        // The bottom layer: values, the CBOR record codec, the field table, schema descriptions,
        // index and primary key encoding, JSON. No LMDB: the compiler refuses any reference to a layer above.
        .target(name: "StrataFormat"),
        // Full-text search without storage: the tokenizer, the query grammar, the postings codec,
        // BM25 ranking and top-k over posting cursors, highlights and snippets. On StrataFormat alone.
        .target(name: "StrataText", dependencies: ["StrataFormat"]),
        // The store on LMDB: transactions, the catalog, the one record writer, the one index maintainer,
        // the change log, replica apply, the migrator's run, decoding threads. Names nothing above it.
        .target(
            name: "StrataStorage",
            dependencies: ["StrataFormat", "StrataText", "LMDB", .product(name: "Logging", package: "swift-log")]
        ),
        // Queries: the planner, the executor, the front ends (key paths, format strings, #Predicate),
        // aggregates, full-text search, relationship paths. On the store; names no feature above it.
        .target(
            name: "StrataQuery",
            dependencies: ["StrataFormat", "StrataText", "StrataStorage", "LMDB", .product(name: "Logging", package: "swift-log")]
        ),
        // Import, migration operations, observation, replication feeds, inspection; the library users
        // import: re-exports StrataFormat, StrataStorage and StrataQuery.
        // The features, on the query layer. Inspection (descriptions of stored entities, export,
        // statistics, index edits by name) and observation (of commits, from any process) name no
        // other feature; JSON import (upsert, sync, nested records, inference) and migration operations
        // build on inspection, and the replication feed on both.
        .target(name: "StrataImport", dependencies: featureDependencies + ["StrataInspection"]),
        .target(name: "StrataInspection", dependencies: featureDependencies),
        .target(name: "StrataMigration", dependencies: featureDependencies + ["StrataInspection"]),
        .target(name: "StrataObservation", dependencies: featureDependencies),
        .target(name: "StrataReplication", dependencies: featureDependencies + ["StrataObservation", "StrataInspection"]),
        // The public umbrella a program imports: every layer and feature above, re-exported.
        .target(
            name: "Strata",
            dependencies: ["StrataFormat", "StrataStorage", "StrataQuery", "StrataImport", "StrataInspection",
                           "StrataMigration", "StrataObservation", "StrataReplication"]
        ),
        // `strata studio`: a local web inspector (a JSON API, its OpenAPI document and one page) on
        // Hummingbird. Its own target so that a program depending on the Strata product never builds a web server.
        .target(
            name: "StrataStudio",
            dependencies: ["Strata", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // What the two executables share: --timeout, the studio's arguments, opening a store for a
        // command, the fault handler, control characters made visible. No web server.
        .target(
            name: "StrataToolSupport",
            dependencies: ["Strata", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // `strata`: every command; `strata studio` runs `strata-studio`, so neither Hummingbird nor SwiftNIO is linked here.
        .executableTarget(
            name: "StrataCommand",
            dependencies: ["Strata", "StrataToolSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // `strata-studio`: the studio's server, what `strata studio` runs.
        .executableTarget(
            name: "StrataStudioTool",
            dependencies: ["Strata", "StrataStudio", "StrataToolSupport",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // SQLite's C API (Debian: libsqlite3-dev), for the tests alone: the FTS5 reference of full-text search.
        .systemLibrary(name: "CSQLite", path: "Tests/CSQLite", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(name: "StrataFormatTests", dependencies: ["StrataFormat", "TestSupport"]),
        .testTarget(name: "StrataTextTests", dependencies: ["StrataText", "StrataFormat", "TestSupport"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataStorage", "StrataQuery", "StrataImport", "StrataInspection", "StrataMigration", "StrataObservation", "StrataReplication", "StrataFormat", "StrataText", "LMDB", "TestSupport", "CSQLite", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "StrataStudioTests",
            dependencies: ["StrataStudio", "Strata", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
        .testTarget(name: "StrataCommandTests", dependencies: ["StrataCommand", "Strata", "LMDB", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

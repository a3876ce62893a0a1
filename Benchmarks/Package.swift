// swift-tools-version: 6.1
// Benchmarks for Strata, kept in their own package so that the library's users never resolve
// ordo-one/benchmark or GRDB. See README.md in this folder.
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Deterministic users shaped like a REST API response, and a streaming JSON writer for them.
        .target(name: "Dataset"),
        .executableTarget(name: "generate-dataset", dependencies: ["Dataset"]),

        // SQLite's C API from the system library (Debian: libsqlite3-dev), for the SQLite-C engines.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),

        // The measurements (bulk upsert, point reads, full scans) for Strata and its peers: GRDB's
        // DatabasePool (synchronous NORMAL and FULL), SQLite's C API, and raw LMDB for reads and scans.
        .target(
            name: "EngineComparison",
            dependencies: [
                "Dataset",
                "CSQLite",
                .product(name: "Strata", package: "Strata"),
                .product(name: "LMDB", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "side-by-side", dependencies: ["EngineComparison"]),

        // The record codec alone: point reads, scans and unchanged upserts of a small cached store,
        // FieldCodable and Codable, one non-inlined function each for callgrind.
        .executableTarget(
            name: "codec-micro",
            dependencies: ["Dataset", "EngineComparison", .product(name: "Strata", package: "Strata")]
        ),

        // Indexed queries, Strata vs SQLite-C and GRDB's pool: thirteen query shapes on three
        // single-field and three compound indexes, plus one unindexed scan.
        .target(
            name: "QueryComparison",
            dependencies: [
                "Dataset",
                "CSQLite",
                "EngineComparison",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "query-side-by-side", dependencies: ["QueryComparison"]),

        // JSON bulk import, Strata's importer vs JSONDecoder + GRDB upserts, with peak memory.
        .target(
            name: "ImportComparison",
            dependencies: [
                "Dataset",
                "EngineComparison",
                "QueryComparison",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "import-side-by-side", dependencies: ["ImportComparison"]),

        // Relationships: users with nested notes imported and queried (`ANY notes.text == ?`).
        .target(
            name: "RelationshipComparison",
            dependencies: [
                "Dataset",
                "EngineComparison",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "relationship-side-by-side", dependencies: ["RelationshipComparison"]),

        // Full-text search, Strata's SEARCH beside SQLite FTS5 (C API) on the installed manual pages.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .executableTarget(
            name: "fulltext-side-by-side",
            dependencies: ["CSQLite", "CZlib", "EngineComparison", .product(name: "Strata", package: "Strata")]
        ),

        // What active observers cost a stream of writes they do not observe.
        .executableTarget(name: "observation-overhead", dependencies: ["EngineComparison", .product(name: "Strata", package: "Strata")]),
        .executableTarget(name: "changelog-bench", dependencies: ["Dataset", "EngineComparison", .product(name: "Strata", package: "Strata")]),
        // Schema migrations on N users with 3 indexes: renames, backfills, a transform, an indexed type change.
        .executableTarget(name: "migration-bench", dependencies: ["EngineComparison", .product(name: "Strata", package: "Strata")]),

        // `strata studio`'s grid pages on a demo store (1,000,000 users): server-side times over loopback.
        .executableTarget(name: "studio-pages", dependencies: [.product(name: "StrataStudio", package: "Strata"),
                                                               .product(name: "Strata", package: "Strata")]),

        // The official harness: `swift package --package-path Benchmarks benchmark`.
        .executableTarget(
            name: "StrataVsGRDB",
            dependencies: [
                "EngineComparison",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StrataVsGRDB",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
// The README's and the docs' Swift snippets as code that compiles: `tools/check-snippets` checks
// that every fenced Swift block in the docs is the text of a file or a marked region here, and
// `.ci/run` builds this package.
import PackageDescription

let package = Package(
    name: "StrataExamples",
    platforms: [.macOS(.v15)],
    // snippet: package-dependency
    dependencies: [.package(name: "Strata", path: "..")],   // a path, or the repository's URL and a version
    // end snippet: package-dependency
    targets: [
        // The Quick start as a fresh `main.swift`, exactly as the README shows it: its statements run
        // inside an `async` function, as in a server's handler or a test.
        .executableTarget(name: "QuickStart", dependencies: [.product(name: "Strata", package: "Strata")]),
        // The README's tour of each capability, each block a marked region.
        .executableTarget(name: "Tour", dependencies: [.product(name: "Strata", package: "Strata")]),
        // The DocC articles' snippets (Sources/Strata/Strata.docc), each article's blocks a marked region.
        // snippet: package-target
        .executableTarget(name: "Articles", dependencies: [.product(name: "Strata", package: "Strata")]),
        // end snippet: package-target
    ],
    swiftLanguageModes: [.v6]
)

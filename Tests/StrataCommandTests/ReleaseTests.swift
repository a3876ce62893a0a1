import Foundation
import Testing
import TestSupport

/// One version in one place: `StrataVersion.current` (`Sources/StrataCommand/StrataVersion.swift`)
/// is what `strata --version` prints, the newest release of `CHANGELOG.md` and the version of the
/// README's dependency line, whose URL the changelog's links share.
@Suite struct ReleaseTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first capture group of each match of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) throws -> [[String]] {
        let expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// `StrataVersion.current`, read from its source file as the scripts read it.
    static func version() throws -> String {
        let found = try captures(#"^ *static let current = "([^"]*)"$"#, in: text("Sources/StrataCommand/StrataVersion.swift"))
        try #require(found.count == 1, "StrataVersion.swift must declare current once: \(found)")
        return found[0][0]
    }

    /// A version's numbers, for ordering.
    static func numbers(_ version: String) -> [Int] { version.split(separator: ".").compactMap { Int($0) } }

    @Test func theVersionIsSemanticAndIsWhatTheToolPrints() throws {
        let version = try Self.version()
        #expect(version.range(of: #"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$"#, options: .regularExpression) != nil,
                "not MAJOR.MINOR.PATCH: \(version)")
        let printed = try StrataCLI.run(["--version"])
        #expect(printed.status == 0)
        #expect(printed.output == version + "\n")
        // Nowhere else in the tool's sources is a version written.
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/StrataCommand").path)
        for file in sources where file.hasSuffix(".swift") && file != "StrataVersion.swift" {
            let source = try Self.text("Sources/StrataCommand/" + file)
            #expect(!source.contains("\"\(version)\""), "\(file) spells the version out; use StrataVersion.current")
        }
    }

    @Test func theChangelogHasUnreleasedThenTheVersionNewestFirst() throws {
        let changelog = try Self.text("CHANGELOG.md")
        let headings = try Self.captures(#"^## \[([^\]]+)\](.*)$"#, in: changelog)
        try #require(headings.count >= 2, "CHANGELOG.md needs an Unreleased section and a release: \(headings)")
        #expect(headings[0] == ["Unreleased", ""])
        #expect(headings[1][0] == (try Self.version()), "the newest release in CHANGELOG.md is not StrataVersion.current")
        let releases = headings.dropFirst()
        for release in releases {
            #expect(release[1].range(of: #"^ - [0-9]{4}-[0-9]{2}-[0-9]{2}$"#, options: .regularExpression) != nil,
                    "a release heading is `## [X.Y.Z] - YYYY-MM-DD`: \(release)")
        }
        let ordered = releases.map { Self.numbers($0[0]) }
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) == false && $0 != $1 },
                "releases newest first, each once: \(releases.map { $0[0] })")
        // Every heading has its link, on the project's URL.
        let url = try Self.dependency().url
        for heading in headings {
            let links = try Self.captures(#"^\[\#(NSRegularExpression.escapedPattern(for: heading[0]))\]: (\S+)$"#, in: changelog)
            #expect(links.count == 1 && links[0][0].hasPrefix(url + "/"), "no link for \(heading[0]) on \(url)")
        }
    }

    /// The README's one dependency line: its URL and version, and the product line's package.
    static func dependency() throws -> (url: String, from: String, package: String) {
        let readme = try text("README.md")
        let lines = try captures(#"\.package\(url: "([^"]+)", from: "([^"]+)"\)"#, in: readme)
        try #require(lines.count == 1, "README.md must have one .package(url:from:) line: \(lines)")
        let products = try captures(#"\.product\(name: "Strata", package: "([^"]+)"\)"#, in: readme)
        try #require(products.count == 1, "README.md must name the product once: \(products)")
        return (lines[0][0], lines[0][1], products[0][0])
    }

    @Test func theReadmeDependencyLineNamesTheVersionAndItsPackage() throws {
        let line = try Self.dependency()
        #expect(line.from == (try Self.version()))
        #expect(line.url.hasPrefix("https://"), "a URL people can clone: \(line.url)")
        // SwiftPM names a package by its URL's last part: the product line must use that name.
        #expect(line.package == line.url.split(separator: "/").last.map { $0.lowercased() })
        let readme = try Self.text("README.md")
        #expect(readme.split(separator: "\n").count <= 300, "README.md is longer than 300 lines")
    }
}

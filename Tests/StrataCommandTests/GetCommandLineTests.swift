import ArgumentParser
import Testing
import TestSupport
@testable import StrataCommand

/// `strata get`'s plain lines are read without argument-parser (`RecordLookup(plainLine:)`);
/// these tests hold that reading equal to argument-parser's on every line it takes.
@Suite struct GetCommandLineTests {
    /// What argument-parser made of a line: `get`'s look-up, another command's type, or an error.
    enum Parsed: Equatable {
        case get(RecordLookup)
        case other(String)
        case threw

        init(_ words: [String]) {
            do {
                let command = try StrataTool.parseAsRoot(words)
                self = if let get = command as? GetCommand { .get(get.lookup) } else { .other("\(type(of: command))") }
            } catch {
                self = .threw
            }
        }
    }

    /// Words of plain lines and of every near miss: negative keys, help, `--`, options `get`
    /// lacks or misspelt, values it refuses, empty words.
    static let vocabulary = [
        "get", "s.strata", "User", "4242", "5", "a b", "Ünïcødé", "-5", "-", "--", "", "help", "--help", "-h",
        "--format", "json", "jsonl", "table", "csv", "tsv", "xml", "--format=table", "--format=jsonl", "--format=",
        "--formats", "--read-only", "--read-only=true", "--readonly", "--version", "--generate-completion-script",
        "---completion", "--limit", "=", "query", "export", "studio",
    ]

    @Test func everyLineItReadsIsReadAsArgumentParserReadsIt() throws {
        var random = SeededGenerator(seed: 2026_11_29)
        var read = 0
        for _ in 0..<4_000 {
            var words = [Int.random(in: 0..<10, using: &random) == 0 ? Self.vocabulary.randomElement(using: &random)! : "get"]
            for _ in 0..<Int.random(in: 0...7, using: &random) {
                // Plain words half the time, so that many lines are of the plain form.
                words.append(Bool.random(using: &random)
                             ? ["s.strata", "User", "4242", "5", "Ünïcødé"].randomElement(using: &random)!
                             : Self.vocabulary.randomElement(using: &random)!)
            }
            guard let plain = RecordLookup(plainLine: words[...]) else { continue }
            read += 1
            #expect(Parsed.get(plain) == Parsed(words), "\(words)")
        }
        // The plain form is common among these lines, so the comparison is not empty.
        #expect(read > 500, "only \(read) lines were read as plain")
    }

    @Test func theLinesPeopleTypeAreReadDirectly() throws {
        let lines: [[String]] = [
            ["get", "users.strata", "User", "4242"],
            ["get", "stats.strata", "Population", "DE", "2021"],
            ["get", "users.strata", "User", "7", "--format", "table"],
            ["get", "--read-only", "users.strata", "User", "--format=jsonl", "7"],
        ]
        for words in lines {
            let plain = try #require(RecordLookup(plainLine: words[...]), "\(words)")
            #expect(Parsed.get(plain) == Parsed(words), "\(words)")
        }
    }

    @Test func everythingElseGoesToArgumentParser() {
        let lines: [[String]] = [
            ["get", "users.strata", "User", "-5"],               // a negative key: argument-parser's rule
            ["get", "users.strata", "User"],                     // a missing key: its usage error
            ["get", "users.strata", "User", "7", "--help"],
            ["get", "users.strata", "User", "7", "--format", "xml"],
            ["get", "users.strata", "User", "7", "--format", "json", "--format", "table"],
            ["get", "users.strata", "User", "7", "--read-only", "--read-only"],
            ["get", "users.strata", "User", "--", "7"],
            ["help", "get", "x", "y"],
            ["query", "users.strata", "User", "7"],
        ]
        for words in lines {
            #expect(RecordLookup(plainLine: words[...]) == nil, "\(words)")
        }
    }
}

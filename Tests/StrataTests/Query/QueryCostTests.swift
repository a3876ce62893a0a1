import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataQuery

/// A document with a text body, for patterns over long texts.
struct Document: Record, Equatable {
    var id: Int64
    var body: String
    static let primaryKey = \Document.id
}

/// Query time is bounded: `CONTAINS` and `LIKE` take steps linear in the text whatever the
/// pattern (counted, not timed), pattern operands and regular expressions have size limits with
/// errors that name both sizes, and a query stops with `.timeout` past its time limit or
/// `.cancelled` when its task is, whichever comparison it is in the middle of.
@Suite struct QueryCostTests {
    static let megabyte = 1_000_000
    static let longText = String(repeating: "a", count: megabyte)
    /// A slow regular expression: about 125 instructions, alive at each of a million positions
    /// (hundreds of millions of steps), yet within the cost cap of a match
    /// (``PatternMatching/maxMatchCost``), which refuses the issue's `.*(a?){1000}(a?){1000}b`
    /// outright (`PatternCostTests`).
    static let slowRegex = ".*(a?){60}b"

    // MARK: Linear matchers

    @Test func containsSearchesAMegabyteForATenKilobyteNeedleInLinearSteps() {
        let needle = String(repeating: "a", count: 10_239) + "b"
        var steps = 0
        #expect(!StringSearch.contains(Self.longText, needle, steps: &steps))
        #expect(steps <= 2 * (Self.megabyte + needle.utf8.count), "\(steps) steps")
        steps = 0
        #expect(StringSearch.contains(Self.longText + "b", needle, steps: &steps))
        #expect(steps <= 2 * (Self.megabyte + 1 + needle.utf8.count), "\(steps) steps")
    }

    /// Each shape is quadratic for a matcher that retries every start: a long literal part, many
    /// short parts, a part of `?`s and literals longer than a machine word, characters that are
    /// not ASCII.
    @Test(arguments: [
        "*" + String(repeating: "a", count: 60_000) + "b*",
        "*" + String(repeating: "a*", count: 30_000) + "b",
        "*" + String(repeating: "?*", count: 30_000) + "b*",
        "*" + String(repeating: "a?", count: 100) + "b*",
        "*" + String(repeating: "é", count: 5_000) + "b*",
    ])
    func likeMatchesAMegabyteInStepsLinearInTextAndPattern(pattern: String) {
        let text = pattern.contains("é") ? String(repeating: "é", count: 200_000) : Self.longText
        let tokens = pattern.count, textLength = text.count
        let words = (tokens + 63) / 64
        var steps = 0
        #expect(!PatternMatching.like(text, pattern: pattern, steps: &steps))
        #expect(steps <= 4 * (textLength + tokens) + 2 * textLength * min(words, 4), "\(steps) steps for \(textLength) characters")
    }

    // MARK: Through queries

    /// One document of a million `a`s (id 1) after two short ones.
    static func documents(_ configure: (inout Store.Configuration) -> Void = { _ in }) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore(configure)
        try store.write { tx in
            try tx.insert(Document(id: 1, body: "ab"))
            try tx.insert(Document(id: 2, body: "aab"))
            try tx.insert(Document(id: 3, body: longText))
        }
        return (store, dir)
    }

    @Test func theIssuesContainsAndLikeAnswerWellWithinATimeLimit() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let needle = String(repeating: "a", count: 10_239) + "b"
        try store.read { tx in
            let documents = tx.query(Document.self).timeout(.seconds(20))
            let missing = try documents.where("body CONTAINS %@", needle).count()
            let folded = try documents.where("body CONTAINS[cd] %@", String(repeating: "A", count: 10_240)).ids()
            let wildcards = try documents.where("body LIKE %@", "*" + String(repeating: "?*", count: 30_000) + "b").count()
            let letters = try documents.where("body LIKE[c] %@", "*" + String(repeating: "A", count: 60_000) + "*").ids()
            #expect(missing == 0 && folded == [3] && wildcards == 0 && letters == [3])
        }
    }

    @Test func theIssuesRegularExpressionStopsAtTheTimeLimitNamingEntityAndDuration() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in
                try tx.query(Document.self).where("body MATCHES %@", Self.slowRegex).timeout(.milliseconds(500)).count()
            }
        }
        #expect(error?.code == .timeout)
        #expect(error?.entity == "Document")
        #expect(error?.message.contains("Document: the query ran longer than its time limit of 0.5 s and was stopped after") == true,
                "\(error?.message ?? "")")
    }

    @Test func theStoresQueryTimeoutAppliesUnlessAQueryLiftsIt() throws {
        let (store, _dir) = try Self.documents { $0.queryTimeout = .milliseconds(300) }
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in try tx.query(Document.self).where("body MATCHES %@", Self.slowRegex).ids() }
        }
        #expect(error?.code == .timeout)
        let unlimited = try store.read { tx in try tx.query(Document.self).where("body MATCHES 'a+b'").timeout(nil).ids() }
        #expect(unlimited == [1, 2])
    }

    /// A time limit is checked between records too: here each record's match is short (below a
    /// matcher's check interval), and there are many.
    @Test func aScanOfManyShortMatchesStopsBetweenRecords() throws {
        let (store, _dir) = try makeStore()
        _ = _dir
        try store.write { tx in for id in 1...5_000 { try tx.insert(Document(id: Int64(id), body: String(repeating: "a", count: 40))) } }
        var steps = 0
        let regex = try RegularExpression("(a?){40}b")
        _ = regex.matches(String(repeating: "a", count: 40), steps: &steps)
        #expect(steps < QueryBudget.checkInterval, "one match stays below the matcher's check interval")
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in try tx.query(Document.self).where("body MATCHES '(a?){40}b'").timeout(.milliseconds(20)).count() }
        }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("records examined") == true)
    }

    /// A query run inside another's `forEach` shares the outer query's budget, but keeps its own
    /// shorter limit.
    @Test func aNestedQueryKeepsItsOwnShorterLimit() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in
                // The untyped forEach calls its body while the outer query runs.
                try tx.query(entity: "Document").timeout(.seconds(600)).forEach { _ in
                    _ = try tx.query(Document.self).where("body MATCHES %@", Self.slowRegex).timeout(.milliseconds(200)).count()
                }
            }
        }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("time limit of 0.2 s") == true, "\(error?.message ?? "")")
    }

    @Test func aDeleteThatRunsOutOfTimeDeletesNothing() throws {
        let (store, _dir) = try Self.documents { $0.queryTimeout = .milliseconds(300) }
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.write { tx in try tx.deleteAll(Document.self, where: "body MATCHES %@", Self.slowRegex) }
        }
        #expect(error?.code == .timeout)
        #expect(try store.read { tx in try tx.query(Document.self).count() } == 3)
    }

    @Test func cancellingTheTaskOfAnAsyncReadStopsItsQuery() async throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let started = Flag()
        let task = Task {
            try await store.read { tx in
                started.set()
                return try tx.query(Document.self).where("body MATCHES %@", Self.slowRegex).count()
            }
        }
        // Cancelled from a thread of its own: when the whole suite keeps the cooperative pool
        // busy, this test's own continuation may not run again until the query ends.
        let canceller = Thread {
            while !started.isSet { usleep(10_000) }
            usleep(100_000)
            task.cancel()
        }
        canceller.start()
        let result = await task.result
        guard case .failure(let error as StrataError) = result else {
            Issue.record("expected a StrataError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
        #expect(error.message.hasPrefix("Document: the query was cancelled after"))
    }

    @Test func aQueryInACancelledTaskStops() async throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try store.read { tx in try tx.query(Document.self).where("body MATCHES %@", Self.slowRegex).count() }
        }
        let result = await task.result
        guard case .failure(let error as StrataError) = result else {
            Issue.record("expected a StrataError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
    }

    // MARK: Size limits

    @Test func patternOperandsLongerThanTheLimitAreRefusedWithBothSizes() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let long = String(repeating: "a", count: 70_000)
        for op in ["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"] {
            let error = #expect(throws: StrataError.self) {
                try store.read { tx in try tx.query(Document.self).where("body \(op) %@", long).count() }
            }
            #expect(error?.code == .invalidQuery)
            #expect(error?.field == "body")
            #expect(error?.message.contains("body \(op) 'aaaaaaaaaaaaaaaaaaaaaaaa…': the pattern is 70000 bytes long") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("limited to 65536 bytes") == true)
        }
    }

    @Test func aLikePartMixingWildcardsAndLettersBeyondTheLimitIsRefused() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in
                try tx.query(Document.self).where("body LIKE %@", "*" + String(repeating: "?a", count: 3_000) + "*").count()
            }
        }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("is 6000 characters long; such parts are limited to 4096") == true, "\(error?.message ?? "")")
        // The same length of `?`s alone, or of letters alone, costs nothing more and is accepted.
        try store.read { tx in
            let wildcards = try tx.query(Document.self).where("body LIKE %@", "*" + String(repeating: "?", count: 6_000) + "*").ids()
            let letters = try tx.query(Document.self).where("body LIKE %@", "*" + String(repeating: "a", count: 6_000) + "*").ids()
            #expect(wildcards == [3] && letters == [3])
        }
    }

    @Test func aRegularExpressionTooLargeNamesItsSizeAndTheLimit() throws {
        let (store, _dir) = try Self.documents()
        _ = _dir
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in try tx.query(Document.self).where("body MATCHES '(a{1000}){1000}'").count() }
        }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("compiles to 1000001 instructions") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("more than the limit of 10000") == true)
    }

    /// A class is kept sorted and merged, so that membership is a binary search however many
    /// ranges a pattern writes; answers are unchanged.
    @Test func characterClassesAreSortedAndMergedForABinarySearch() throws {
        let regex = try RegularExpression("[c-ea-cxd\\d\\d]+")
        #expect(regex.sets[0].ranges == [0x61...0x65, 0x78...0x78])
        #expect(regex.sets[0].shorthands.count == 1)
        #expect(regex.matches("abcdex42") && !regex.matches("abf"))
        let ranges = (0..<5_000).map { "\\x{\(String(0x1000 + 4 * (4_999 - $0), radix: 16))}" }.joined()
        let many = try RegularExpression("[\(ranges)a]+")
        #expect(many.sets[0].ranges.first == 0x61...0x61 && many.sets[0].ranges.count == 5_001)
        #expect(many.matches(String(repeating: "a", count: 1_000) + "\u{1004}") && !many.matches("b"))
    }
}

/// A flag one thread sets and another polls.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

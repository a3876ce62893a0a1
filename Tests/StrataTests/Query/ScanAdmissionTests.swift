import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataQuery

/// A scan filtered by one text equality passes over, uncopied and unparsed, the records that do
/// not hold the text's bytes (`QueryExecutor.scanAdmission`), and answers as a scan that checks
/// every record in full.
@Suite struct ScanAdmissionTests {
    struct Person: Record, Equatable {
        var id: Int64
        var name: String
        var nickname: String
        var tags: [String]
        static let primaryKey = \Person.id
    }

    /// "David" as a name, inside a longer name, as another field's value (the bytes are there, the
    /// name is not), and as an array's element.
    static let people: [Person] = (0..<600).map { (i: Int) -> Person in
        let names: [String] = ["David", "Davidson", "Dave", "Ann\(i)"]
        let name: String = names[min(i % 7, 3)]
        let nickname: String = i % 5 == 0 ? "David" : "Zed"
        let tags: [String] = i % 11 == 0 ? ["a", "David"] : ["b"]
        return Person(id: Int64(i), name: name, nickname: nickname, tags: tags)
    }

    func filledStore() throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Self.people) }
        return (store, dir)
    }

    @Test func bytesContainANeedleAnywhereAndOnlyWhole() {
        func contains(_ haystack: String, _ needle: String) -> Bool {
            QueryExecutor.bytes(Array(haystack.utf8).span, contain: Array(needle.utf8))
        }
        #expect(contains("David", "David") && contains("xxDavid", "David") && contains("Davidxx", "David"))
        #expect(contains("DDDavid", "David") && contains("DaviDavid", "David"))
        #expect(!contains("Davi", "David") && !contains("DaviX", "David") && !contains("", "David") && !contains("david", "David"))
        #expect(contains("Ünïcode", "ïc") && !contains("Ünïcode", "ic"))
    }

    @Test func aFilteredScanAnswersAsOneThatChecksEveryRecord() throws {
        let (store, dir) = try filledStore()
        defer { withExtendedLifetime(dir) {} }
        let cases: [(String, (Person) -> Bool)] = [
            ("name == 'David'", { $0.name == "David" }),
            ("name == 'Davidson'", { $0.name == "Davidson" }),
            ("nickname == 'David'", { $0.nickname == "David" }),
            ("tags == 'David'", { $0.tags.contains("David") }),
            ("name == 'Nobody'", { _ in false }),
            ("name == ''", { $0.name.isEmpty }),
        ]
        try store.read { tx in
            for (predicate, matches) in cases {
                let request = try tx.query(Person.self).where(predicate)
                #expect(try request.explain().description.hasPrefix("FullScan(Person)"), "\(predicate)")
                let expected = Self.people.filter(matches).map(\.id)
                #expect(try request.ids() == expected, "\(predicate)")
                #expect(try request.all().map(\.id) == expected, "\(predicate)")
                #expect(try request.count() == expected.count, "\(predicate)")
                #expect(try request.limit(3).ids() == Array(expected.prefix(3)), "\(predicate)")
            }
        }
    }

    @Test func refusedRecordsCountAsReadAndTickTheBudget() throws {
        let (store, dir) = try filledStore()
        defer { withExtendedLifetime(dir) {} }
        try store.read { tx in
            let request = try tx.query(Person.self).where("name == 'Nobody'")
            let context = try #require(try request.resolvedContext())
            let executor = try QueryExecutor(transaction: tx, context: context, plan: try request.explain(),
                                             predicate: request.query.predicate)
            var results = 0
            try executor.forEachResult { _ in results += 1; return true }
            #expect(results == 0 && executor.candidatesRead == Self.people.count)
            // Empty, or holding U+FFFD (what invalid UTF-8 decodes to): every record is checked in full.
            #expect(executor.scanAdmission([]) == nil && executor.scanAdmission(Array("a\u{FFFD}".utf8)) == nil)
            #expect(executor.scanAdmission(Array("a".utf8)) != nil)
        }
        // Every record refused: the time limit still stops the scan between them.
        let error = #expect(throws: StrataError.self) {
            try store.read { tx in try tx.query(Person.self).where("name == 'Nobody'").timeout(.nanoseconds(1)).count() }
        }
        #expect(error?.code == .timeout)
    }
}

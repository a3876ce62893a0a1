import Foundation
import Testing
import TestSupport
@testable import Strata

/// Tagged items, with a multi-value index on the tags and a copy without one.
struct TaggedItem: Record, Equatable {
    var id: Int64
    var name: String
    var tags: [String]
    static let primaryKey = \TaggedItem.id
    static let indexes: [IndexDefinition<TaggedItem>] = [.index(\.tags, multiValue: true)]
}

struct UnindexedTaggedItem: Record, Equatable {
    var id: Int64
    var name: String
    var tags: [String]
    static let primaryKey = \UnindexedTaggedItem.id
}

/// `CONTAINS` on an array field means what it means to NSPredicate: the array holds an element
/// equal to the value (options applying to that comparison); `ANY tags CONTAINS` is the
/// per-element substring test. On a string field it stays the substring test.
@Suite struct ArrayContainsTests {
    static let items = [
        TaggedItem(id: 1, name: "beta", tags: ["beta"]),
        TaggedItem(id: 2, name: "b", tags: ["b"]),
        TaggedItem(id: 3, name: "B", tags: ["B"]),
        TaggedItem(id: 4, name: "alpha", tags: ["alpha", "b"]),
        TaggedItem(id: 5, name: "none", tags: []),
        TaggedItem(id: 6, name: "Bé", tags: ["bé", "abc"]),
    ]

    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert(Self.items)
            try tx.insert(Self.items.map { UnindexedTaggedItem(id: $0.id, name: $0.name, tags: $0.tags) })
        }
    }

    /// The ids the format finds, with the multi-value index and without it (the two must agree).
    func ids(_ format: String, _ arguments: any Sendable...) throws -> [Int64] {
        try store.read { tx throws in
            let indexed = try tx.query(TaggedItem.self).where(format, arguments: arguments).ids()
            let scanned = try tx.query(UnindexedTaggedItem.self).where(format, arguments: arguments).ids()
            #expect(indexed == scanned, "\(format)")
            return indexed
        }
    }

    @Test func containsOnAnArrayFieldMeansTheArrayHoldsTheValue() throws {
        #expect(try ids("tags CONTAINS 'b'") == [2, 4])
        #expect(try ids("tags CONTAINS %@", "beta") == [1])
        #expect(try ids("NOT tags CONTAINS 'b'") == [1, 3, 5, 6])
        #expect(try ids("tags CONTAINS 'zzz'") == [])
    }

    @Test func optionsApplyToTheElementComparison() throws {
        #expect(try ids("tags CONTAINS[c] 'B'") == [2, 3, 4])
        #expect(try ids("tags CONTAINS[cd] 'BE'") == [6])
        #expect(try ids("tags CONTAINS[c] 'BE'") == [])
    }

    @Test func anyContainsIsTheSubstringTestOnEachElement() throws {
        #expect(try ids("ANY tags CONTAINS 'b'") == [1, 2, 4, 6])
        #expect(try ids("ANY tags CONTAINS[c] 'B'") == [1, 2, 3, 4, 6])
        #expect(try ids("ALL tags CONTAINS 'b'") == [1, 2, 5, 6])
        #expect(try ids("NONE tags CONTAINS 'b'") == [3, 5])
    }

    @Test func containsOnAStringFieldIsStillTheSubstringTest() throws {
        #expect(try ids("name CONTAINS 'b'") == [1, 2])
        #expect(try ids("name CONTAINS[c] 'b'") == [1, 2, 3, 6])
    }

    @Test func theKeyPathFormHasTheSameMeaning() throws {
        try store.read { tx throws in
            #expect(try tx.query(TaggedItem.self).where(.contains(\.tags, "b")).ids() == [2, 4])
            #expect(try tx.query(TaggedItem.self).where(.contains(\.tags, "B", .caseInsensitive)).ids() == [2, 3, 4])
            #expect(try tx.query(TaggedItem.self).where(.contains(\.name, "b")).ids() == [1, 2])
        }
    }

    @Test func theFoundationPredicateFormHasTheSameMeaning() throws {
        try store.read { tx throws in
            #expect(try tx.query(TaggedItem.self).where(#Predicate { $0.tags.contains("b") }).ids() == [2, 4])
            #expect(try tx.query(TaggedItem.self).where(#Predicate { $0.tags.contains { $0.contains("b") } }).ids() == [1, 2, 4, 6])
        }
    }

    @Test func theEvaluatorReadsContainsOnAListAsMembership() {
        let record = DictionaryRecord(["tags": .list([.string("beta"), .string("Gamma")])])
        #expect(!fieldComparison("tags", .contains, .string("b")).evaluate(on: record))
        #expect(fieldComparison("tags", .contains, .string("beta")).evaluate(on: record))
        #expect(fieldComparison("tags", .contains, .string("gamma"), .caseInsensitive).evaluate(on: record))
        #expect(fieldComparison("tags", .contains, .string("b"), [], .any).evaluate(on: record))
    }
}

import Foundation
import Testing
import TestSupport
@testable import Strata

struct FPAddress: Codable, Sendable, Equatable { var city: String; var zip: Int? }

enum FPKind: String, Codable, Sendable, QueryValueConvertible { case article, note }

/// A record with every shape `#Predicate` reaches: nested and optional structs, arrays, Bool,
/// optional Double, an enum.
struct FPPost: Record, Equatable {
    var id: Int64
    var title: String
    var tags: [String]
    var scores: [Int]
    var address: FPAddress
    var home: FPAddress?
    var isPublished: Bool
    var rating: Double?
    var kind: FPKind
    /// Not stored: a key path to it names no field.
    var loudTitle: String { title.uppercased() }
    static let primaryKey = \FPPost.id
    static let indexes: [IndexDefinition<FPPost>] = [.index(\.tags, multiValue: true)]
}

let fpPosts: [FPPost] = [
    FPPost(id: 1, title: "Swift on Linux", tags: ["swift", "linux"], scores: [5, 4], address: FPAddress(city: "Paris", zip: 75001),
           home: FPAddress(city: "Lyon", zip: nil), isPublished: true, rating: 4.5, kind: .article),
    FPPost(id: 2, title: "Predicates", tags: ["swift"], scores: [2], address: FPAddress(city: "Berlin", zip: nil),
           home: nil, isPublished: false, rating: nil, kind: .note),
    FPPost(id: 3, title: "Cooking", tags: [], scores: [], address: FPAddress(city: "Paris", zip: 75002),
           home: FPAddress(city: "Paris", zip: 75002), isPublished: true, rating: 2.0, kind: .note),
    FPPost(id: 4, title: "Linux kernels", tags: ["linux", "c"], scores: [3, 5], address: FPAddress(city: "Rome", zip: 1),
           home: nil, isPublished: false, rating: 3.0, kind: .article),
]

private func cmp(_ field: String, _ op: ComparisonOperator, _ value: QueryValue, _ quantifier: Quantifier? = nil) -> QueryPredicate {
    .comparison(FieldComparison(field: field.split(separator: ".").map(String.init), op: op, value: value, quantifier: quantifier))
}

@Suite struct FoundationPredicateTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert(kernUsers)
            try tx.insert(fpPosts)
        }
    }

    func names(_ users: [KernUser]) -> [String] { users.map(\.firstName) }

    /// Converts `predicate`, checks the tree it became and the posts it finds (which the record
    /// evaluation of Swift's own `predicate.evaluate` must agree with, where Swift can evaluate it).
    func check(_ predicate: Predicate<FPPost>, _ tree: QueryPredicate, _ ids: [Int64],
               swiftAgrees: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try store.read { tx throws in
            let request = try tx.query(FPPost.self).where(predicate)
            #expect(request.query.predicate == tree, sourceLocation: sourceLocation)
            #expect(try request.ids() == ids, sourceLocation: sourceLocation)
        }
        if swiftAgrees {
            #expect(try fpPosts.filter { try predicate.evaluate($0) }.map(\.id) == ids, "Swift's evaluation", sourceLocation: sourceLocation)
        }
    }

    func rejects(_ predicate: Predicate<FPPost>, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            try store.read { tx throws in _ = try tx.query(FPPost.self).where(predicate) }
        }
        #expect(error?.code == .invalidQuery, sourceLocation: sourceLocation)
        #expect(error?.message.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: Kern's examples

    @Test func kernExamplesMatchTheKeyPathForm() throws {
        try store.read { tx throws in
            let users = tx.query(KernUser.self)
            let bluths = try users.where(#Predicate<KernUser> { $0.lastName == "Bluth" })
            #expect(bluths.query == users.where(\.lastName == "Bluth").query)
            #expect(names(try bluths.all()) == ["George", "Michael", "George Michael", "Buster", "Oscar"])

            let thirteen = try users.where(#Predicate<KernUser> { $0.lastName == "Bluth" && $0.luckyNumber == 13 })
            #expect(thirteen.query == users.where(\.lastName == "Bluth" && \.luckyNumber == 13).query)
            #expect(names(try thirteen.all()) == ["George", "Michael"])

            let lucky = try users.where(#Predicate<KernUser> { $0.lastName == "Bluth" && $0.luckyNumber! > 5 })
            #expect(lucky.query == users.where(\.lastName == "Bluth" && \.luckyNumber > 5).query)
            #expect(names(try lucky.sorted(by: \.luckyNumber, .descending).limit(2).all()) == ["George", "Michael"])

            let noNumber = try users.where(#Predicate<KernUser> { $0.luckyNumber == nil })
            #expect(noNumber.query == users.where(\.luckyNumber == nil).query)
            #expect(try noNumber.ids() == [6, 7])
            #expect(try users.where(#Predicate<KernUser> { $0.luckyNumber != nil }).count() == 6)

            let notIn = try users.where(#Predicate<KernUser> { !["Howser", "James"].contains($0.lastName) })
            #expect(try notIn.ids() == [3, 4, 5, 6, 7, 8])
        }
    }

    @Test func explainShowsTheIndexChosen() throws {
        try store.write { tx in
            try tx.insert((100..<3_100).map { KernUser(id: $0, firstName: "F\($0)", lastName: "Filler\($0 % 60)", luckyNumber: Int($0 % 97)) })
        }
        try store.read { tx throws in
            let users = tx.query(KernUser.self)
            let plan = try users.where(#Predicate<KernUser> { $0.lastName == "Bluth" && $0.luckyNumber! > 5 }).explain()
            #expect(plan.description == (try users.where(\.lastName == "Bluth" && \.luckyNumber > 5).explain().description))
            #expect(plan.description.hasPrefix("IndexMerge(User.lastName,luckyNumber (lastName = \"Bluth\", luckyNumber > 5))"), "\(plan)")
            #expect(try users.where(#Predicate<KernUser> { [3, 7].contains($0.luckyNumber) }).explain().description
                    == "IndexMerge(User.luckyNumber IN {3, 7})")
            #expect(try users.where(#Predicate<KernUser> { $0.id == 3 }).explain().description == "KeyLookup(User.id = 3)")
            #expect(try users.where(#Predicate<KernUser> { $0.firstName == "Ron" }).explain().description
                    == #"FullScan(User) → Filter(firstName == "Ron")"#)
        }
    }

    // MARK: Each supported expression

    @Test func equalityAndComparisons() throws {
        try check(#Predicate<FPPost> { $0.title == "Cooking" }, cmp("title", .equal, .string("Cooking")), [3])
        try check(#Predicate<FPPost> { $0.title != "Cooking" }, cmp("title", .notEqual, .string("Cooking")), [1, 2, 4])
        try check(#Predicate<FPPost> { $0.rating! < 3 }, cmp("rating", .less, .double(3)), [3], swiftAgrees: false)
        try check(#Predicate<FPPost> { $0.rating! <= 3 }, cmp("rating", .lessOrEqual, .double(3)), [3, 4], swiftAgrees: false)
        try check(#Predicate<FPPost> { $0.rating! > 3 }, cmp("rating", .greater, .double(3)), [1], swiftAgrees: false)
        try check(#Predicate<FPPost> { $0.rating! >= 3 }, cmp("rating", .greaterOrEqual, .double(3)), [1, 4], swiftAgrees: false)
        // A constant on the left mirrors the operator.
        try check(#Predicate<FPPost> { 3 < $0.rating! }, cmp("rating", .greater, .double(3)), [1], swiftAgrees: false)
        try check(#Predicate<FPPost> { "Cooking" == $0.title }, cmp("title", .equal, .string("Cooking")), [3])
        let article = FPKind.article
        try check(#Predicate<FPPost> { $0.kind == article }, cmp("kind", .equal, .string("article")), [1, 4])
    }

    @Test func logicalOperators() throws {
        try check(#Predicate<FPPost> { $0.isPublished && $0.title != "Cooking" },
                  .and([cmp("isPublished", .equal, .bool(true)), cmp("title", .notEqual, .string("Cooking"))]), [1])
        try check(#Predicate<FPPost> { $0.title == "Cooking" || $0.title == "Predicates" },
                  .or([cmp("title", .equal, .string("Cooking")), cmp("title", .equal, .string("Predicates"))]), [2, 3])
        try check(#Predicate<FPPost> { !$0.isPublished }, .not(cmp("isPublished", .equal, .bool(true))), [2, 4])
        try check(#Predicate<FPPost> { _ in false }, .constant(false), [])
    }

    @Test func keyPathsAndOptionals() throws {
        try check(#Predicate<FPPost> { $0.address.city == "Paris" }, cmp("address.city", .equal, .string("Paris")), [1, 3])
        try check(#Predicate<FPPost> { $0.home?.city == "Lyon" }, cmp("home.city", .equal, .string("Lyon")), [1])
        try check(#Predicate<FPPost> { $0.address.zip == nil }, cmp("address.zip", .equal, .null), [2])
        try check(#Predicate<FPPost> { $0.rating != nil }, cmp("rating", .notEqual, .null), [1, 3, 4])
        let ratingIsNil = cmp("rating", .equal, .null), high = cmp("rating", .greater, .double(2.5))
        try check(#Predicate<FPPost> { $0.rating.flatMap { $0 > 2.5 } ?? false }, .and([.not(ratingIsNil), high]), [1, 4])
        try check(#Predicate<FPPost> { $0.rating.flatMap { $0 > 2.5 } ?? true }, .or([ratingIsNil, high]), [1, 2, 4])
        try check(#Predicate<FPPost> { $0.rating.flatMap { $0 > 2.5 } == nil }, ratingIsNil, [2])
        try check(#Predicate<FPPost> { ($0.rating ?? 0) < 3 }, .or([ratingIsNil, cmp("rating", .less, .double(3))]), [2, 3])
        try check(#Predicate<FPPost> { ($0.rating ?? 5) < 3 },
                  .and([.not(ratingIsNil), cmp("rating", .less, .double(3))]), [3])
    }

    @Test func arraysAndStrings() throws {
        try check(#Predicate<FPPost> { $0.tags.contains("swift") }, cmp("tags", .equal, .string("swift"), .any), [1, 2])
        try check(#Predicate<FPPost> { ["Rome", "Berlin"].contains($0.address.city) },
                  cmp("address.city", .in, .list([.string("Rome"), .string("Berlin")])), [2, 4])
        try check(#Predicate<FPPost> { $0.scores.contains { $0 > 4 } }, cmp("scores", .greater, .int(4), .any), [1, 4])
        try check(#Predicate<FPPost> { $0.tags.contains { $0 == "c" || $0 == "swift" } },
                  .or([cmp("tags", .equal, .string("c"), .any), cmp("tags", .equal, .string("swift"), .any)]), [1, 2, 4])
        try check(#Predicate<FPPost> { $0.scores.allSatisfy { $0 >= 3 } }, cmp("scores", .greaterOrEqual, .int(3), .all), [1, 3, 4])
        try check(#Predicate<FPPost> { $0.tags.contains { $0.starts(with: "li") } }, cmp("tags", .beginsWith, .string("li"), .any), [1, 4])
        // Case-sensitive, as Swift's `contains` is.
        try check(#Predicate<FPPost> { $0.title.contains("Linux") }, cmp("title", .contains, .string("Linux")), [1, 4])
        try check(#Predicate<FPPost> { $0.title.contains("linux") }, cmp("title", .contains, .string("linux")), [])
        try check(#Predicate<FPPost> { $0.title.starts(with: "Pred") }, cmp("title", .beginsWith, .string("Pred")), [2])
    }

    @Test func arrayContainsUsesTheMultiValueIndex() throws {
        try store.write { tx in
            try tx.insert((100..<2_100).map {
                FPPost(id: $0, title: "T\($0)", tags: ["t\($0 % 500)"], scores: [], address: FPAddress(city: "X"),
                       home: nil, isPublished: false, rating: nil, kind: .note)
            })
        }
        let plan = try store.read { tx in try tx.query(FPPost.self).where(#Predicate<FPPost> { $0.tags.contains("swift") }).explain() }
        #expect(plan.description.hasPrefix("IndexScan(FPPost.tags"), "\(plan)")
    }

    // MARK: Refused

    @Test func unsupportedExpressionsThrowInvalidQuery() {
        rejects(#Predicate<FPPost> { $0.title.count > 5 }, mentioning: "reads a property of String, not a stored field")
        rejects(#Predicate<FPPost> { $0.scores.count > 1 }, mentioning: "reads a property of Array<Int>")
        rejects(#Predicate<FPPost> { $0.rating! + 1 > 3 }, mentioning: "Arithmetic")
        rejects(#Predicate<FPPost> { $0.title == $0.address.city }, mentioning: "two fields")
        rejects(#Predicate<FPPost> { ($0.isPublished ? 1 : 0) == 1 }, mentioning: "Conditional")
        rejects(#Predicate<FPPost> { $0.scores.contains { $0 > 1 && $0 < 5 } }, mentioning: "SequenceContainsWhere")
        // ANY over an empty array is false whatever the other operand says: not a per-element test.
        rejects(#Predicate<FPPost> { post in post.tags.contains { $0 == "c" || post.isPublished } }, mentioning: "SequenceContainsWhere")
        let somewhere = FPAddress(city: "Paris", zip: 75001)
        rejects(#Predicate<FPPost> { $0.address == somewhere }, mentioning: "Value")
        rejects(#Predicate<FPPost> { $0.loudTitle == "COOKING" }, mentioning: "does not name stored properties")
    }
}

import Foundation
import Testing
import TestSupport
@testable import Strata

/// Random relationship conditions (ANY, NONE, ALL, @count, to-one paths, nested in AND, OR and
/// NOT with conditions on the record's own fields), run through the semi-join planner and
/// checked against a brute-force evaluation over the records in memory.
@Suite struct RelationshipDifferentialTests {
    /// One random condition, as format text and as a reference test on an author.
    struct Condition {
        var format: String
        var holds: (Author) -> Bool
    }

    struct World {
        var authors: [Author]
        var notes: [Note]
        var companies: [Company]

        func notes(of author: Author) -> [Note] { notes.filter { $0.authorID == author.id } }
        func company(of author: Author) -> Company? { companies.first { $0.id == author.companyID } }
    }

    static func world(_ random: inout SeededGenerator) -> World {
        let companies = (1...5).map { Company(id: Int64($0), name: "C\($0)") }
        let authors = (1...40).map { id in
            Author(id: Int64(id), name: "A\(id % 7)", companyID: Int.random(in: 0..<4, using: &random) == 0 ? nil : Int64.random(in: 1...6, using: &random))
        }
        let notes = (1...150).map { id in
            Note(id: Int64(id), text: "t\(id % 5)", score: Int.random(in: 0...9, using: &random),
                 authorID: Int.random(in: 0..<8, using: &random) == 0 ? nil : Int64.random(in: 1...45, using: &random))
        }
        return World(authors: authors, notes: notes, companies: companies)
    }

    static func condition(_ world: World, _ random: inout SeededGenerator, depth: Int = 0) -> Condition {
        let k = Int.random(in: 0...9, using: &random)
        let n = Int.random(in: 0...5, using: &random)
        let choice = Int.random(in: 0..<(depth < 2 ? 11 : 8), using: &random)
        switch choice {
        case 0: return Condition(format: "ANY notes.score > \(k)") { a in world.notes(of: a).contains { $0.score > k } }
        case 1: return Condition(format: "NONE notes.score == \(k)") { a in !world.notes(of: a).contains { $0.score == k } }
        case 2: return Condition(format: "ALL notes.score >= \(k)") { a in world.notes(of: a).allSatisfy { $0.score >= k } }
        case 3:
            let ops: [(String, (Int, Int) -> Bool)] = [(">", (>)), (">=", (>=)), ("<", (<)), ("<=", (<=)), ("==", (==)), ("!=", (!=))]
            let (op, test) = ops[Int.random(in: 0..<ops.count, using: &random)]
            return Condition(format: "notes.@count \(op) \(n)") { a in test(world.notes(of: a).count, n) }
        case 4: return Condition(format: "company.name == 'C\(n)'") { a in world.company(of: a)?.name == "C\(n)" }
        case 5: return Condition(format: "ANY notes.text == 't\(n)'") { a in world.notes(of: a).contains { $0.text == "t\(n)" } }
        case 6: return Condition(format: "id < \(k * 5)") { a in a.id < Int64(k * 5) }
        case 7: return Condition(format: "company == nil") { a in a.companyID == nil }
        case 8:
            let (l, r) = (condition(world, &random, depth: depth + 1), condition(world, &random, depth: depth + 1))
            return Condition(format: "(\(l.format)) AND (\(r.format))") { l.holds($0) && r.holds($0) }
        case 9:
            let (l, r) = (condition(world, &random, depth: depth + 1), condition(world, &random, depth: depth + 1))
            return Condition(format: "(\(l.format)) OR (\(r.format))") { l.holds($0) || r.holds($0) }
        default:
            let inner = condition(world, &random, depth: depth + 1)
            return Condition(format: "NOT (\(inner.format))") { !inner.holds($0) }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func semiJoinsAgreeWithBruteForce(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let world = Self.world(&random)
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx in
            try tx.upsert(world.companies)
            try tx.upsert(world.authors)
            try tx.upsert(world.notes)
        }
        try store.read { tx throws in
            for _ in 0..<150 {
                let condition = Self.condition(world, &random)
                let expected = world.authors.filter(condition.holds).map(\.id)
                let found = try tx.query(Author.self).where(condition.format).all().map(\.id)
                #expect(found == expected, "\(condition.format)")
                #expect(try tx.query(Author.self).where(condition.format).count() == expected.count, "\(condition.format)")
            }
        }
    }
}

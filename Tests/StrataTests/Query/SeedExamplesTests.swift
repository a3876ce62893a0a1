import Foundation
import Testing
import TestSupport
@testable import Strata

/// KEYShadow's animals: queries written as key-path "triples" with and / and not / or / not,
/// nested into embedded structs, ordered, and grouped with aggregates.
struct Animal: Record, Equatable {
    struct Species: Codable, Sendable, Equatable { var simpleName: String }
    struct Farm: Codable, Sendable, Equatable { var age: Int? }
    var id: Int64
    var name: String
    var species: Species
    var farm: Farm
    var dob: Date
    static let primaryKey = \Animal.id
    static let indexes: [IndexDefinition<Animal>] = [.index(\.species.simpleName), .index(\.name)]

    static func make(_ id: Int64, _ name: String, _ species: String, farmAge: Int?, born day: Int) -> Animal {
        Animal(id: id, name: name, species: Species(simpleName: species), farm: Farm(age: farmAge),
               dob: Date(timeIntervalSince1970: Double(day) * 86_400))
    }
}

let animals: [Animal] = [
    .make(1, "Micky Mouse", "Mouse", farmAge: 3, born: 10),
    .make(2, "Micky Duck", "Duck", farmAge: nil, born: 5),
    .make(3, "micky the cow", "Cow", farmAge: 7, born: 20),
    .make(4, "Rex", "Dog", farmAge: 2, born: 1),
    .make(5, "MICKY junior", "Mouse", farmAge: nil, born: 30),
    .make(6, "Daisy", "Cow", farmAge: 9, born: 15),
]

/// Lidenbrock's recipes, fetched with a predicate format ending in ORDER BY.
struct Recipe: Record, Equatable {
    var id: Int64
    var name: String
    var minutes: Int
    static let primaryKey = \Recipe.id
}

@Suite struct SeedExamplesTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert(animals)
            try tx.insert([Recipe(id: 1, name: "Apple pie", minutes: 60), Recipe(id: 2, name: "Carrot cake", minutes: 90),
                           Recipe(id: 3, name: "Apple crumble", minutes: 45), Recipe(id: 4, name: "Banana bread", minutes: 70)])
        }
    }

    @Test func nameContainsMickyAndNotACowOrDogOrderedBySpeciesThenName() throws {
        let result = try store.read { tx in
            try tx.query(Animal.self)
                .where(.contains(\.name, "Micky", .caseInsensitive) && !.in(\.species.simpleName, ["Cow", "Dog"]))
                .sorted(by: \.species.simpleName).sorted(by: \.name).all()
        }
        #expect(result.map(\.id) == [2, 5, 1])
    }

    @Test func tripleWithNotEqualOrderedByName() throws {
        let result = try store.read { tx in
            try tx.query(Animal.self).where(.contains(\.name, "Micky", .caseInsensitive) && \.name != "Micky Duck")
                .sorted(by: \.name).all()
        }
        #expect(result.map(\.name) == ["MICKY junior", "Micky Mouse", "micky the cow"])
    }

    @Test func nestedOrAndNotGroupsMatchTheFormatLanguage() throws {
        try store.read { tx in
            let typed = try tx.query(Animal.self)
                .where((\.species.simpleName == "Cow" || \.species.simpleName == "Mouse") && !(\.farm.age == nil))
                .sorted(by: "name desc").ids()
            let format = try tx.query(Animal.self)
                .where("(species.simpleName == 'Cow' OR species.simpleName == 'Mouse') AND NOT farm.age == nil ORDER BY name DESC").ids()
            #expect(typed == [3, 1, 6])
            #expect(format == typed)
        }
    }

    @Test func descendingOrderOnAWholeEntity() throws {
        let names = try store.read { tx in try tx.query(Animal.self).sorted(by: \.name, .descending).all().map(\.name) }
        #expect(names == ["micky the cow", "Rex", "Micky Mouse", "Micky Duck", "MICKY junior", "Daisy"])
    }

    @Test func groupBySpeciesWithTheEarliestBirthWhereTheFarmAgeIsKnown() throws {
        let groups = try store.read { tx in
            try tx.query(Animal.self).where(!(\.farm.age == nil)).group(by: \.species.simpleName, aggregating: .min(\.dob))
        }
        #expect(groups.map(\.key) == ["Cow", "Dog", "Mouse"])
        #expect(groups.group(for: "Cow")?.min(\.dob) == .date(Date(timeIntervalSince1970: 15 * 86_400)))
        #expect(groups.group(for: "Cow")?.count == 2)
        #expect(groups.having { $0.count > 1 }.map(\.key) == ["Cow"])
    }

    @Test func lidenbrockFetchWithATrailingOrderBy() throws {
        let recipes = try store.read { tx in try tx.query(Recipe.self, "name BEGINSWITH %@ ORDER BY name DESC", "Apple").all() }
        #expect(recipes.map(\.name) == ["Apple pie", "Apple crumble"])
        let quick = try store.read { tx in try tx.query(Recipe.self, "minutes < 75 ORDER BY minutes DESC LIMIT 2").all() }
        #expect(quick.map(\.name) == ["Banana bread", "Apple pie"])
    }
}

import Foundation
import Strata

/// Kipu's users with notes: a note refers to its user; deleting a user deletes its notes.
struct Author: Record, Equatable {
    var id: Int64
    var name: String
    var email: String?
    var companyID: Int64?
    static let primaryKey = \Author.id
    static let company = ToOne<Author, Company>("company", \.companyID, inverse: "authors", deleteRule: .nullify)
    static let relationships: [AnyRelationship<Author>] = [.init(company)]
}

struct Note: Record, Equatable {
    var id: Int64
    var text: String
    var score: Int
    var authorID: Int64?
    static let primaryKey = \Note.id
    static let indexes: [IndexDefinition<Note>] = [.index(\.score)]
    static let author = ToOne<Note, Author>("author", \.authorID, inverse: "notes", deleteRule: .cascade)
    static let relationships: [AnyRelationship<Note>] = [.init(author)]
}

struct Company: Record, Equatable {
    var id: Int64
    var name: String
    static let primaryKey = \Company.id
    static let indexes: [IndexDefinition<Company>] = [.index(\.name, collation: .caseInsensitive)]
}

/// Lidenbrock's recipes and ingredients: many-to-many through a key list on the recipe.
struct Dish: Record, Equatable {
    var id: String
    var name: String
    var details: String
    var ingredientIDs: [String]
    static let primaryKey = \Dish.id
    static let ingredients = ToMany<Dish, Component>("ingredients", \.ingredientIDs, inverse: "recipes")
    static let relationships: [AnyRelationship<Dish>] = [.init(ingredients)]
}

struct Component: Record, Equatable {
    var id: String
    var name: String
    static let primaryKey = \Component.id
    static let indexes: [IndexDefinition<Component>] = [.index(\.name)]
}

/// An invoice may not lose its customer: deleting a customer with invoices is refused.
struct Invoice: Record, Equatable {
    var id: Int64
    var amount: Double
    var customerID: Int64?
    static let primaryKey = \Invoice.id
    static let customer = ToOne<Invoice, Company>("customer", \.customerID, inverse: "invoices", deleteRule: .deny)
    static let relationships: [AnyRelationship<Invoice>] = [.init(customer)]
}

import Foundation
import Strata

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tour-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }
let store = try Store(path: directory.appendingPathComponent("tour.strata").path)
let user = User(id: 6, firstName: "Shawn", lastName: "Merrill", luckyNumber: 5, tags: [], createdDate: .now)
let note = Note(id: 1, text: "diary, episode 1", userID: 6)
let pancake = Recipe(id: "pancake", name: "Pancake", ingredientIDs: ["flour", "egg"])
try store.write { tx in
    try tx.insert(user)
    try tx.insert(note)
    try tx.insert([Ingredient(id: "flour", name: "flour"), Ingredient(id: "egg", name: "egg")])
    try tx.insert(pancake)
}
try queries(store)
try aggregating(store)
try syncCalls(store, user)
try migrating()

// snippet: relationships
struct Note: Record {
    var id: Int64
    var text: String
    var userID: Int64?
    static let primaryKey = \Note.id
    // to-one; its inverse "notes" is the to-many side, queryable from User
    static let user = ToOne<Note, User>("user", \.userID, inverse: "notes", deleteRule: .cascade)
    static let relationships: [AnyRelationship<Note>] = [.init(user)]
}
try store.read { tx in
    let author = try tx.parent(Note.user, of: note)                   // User?
    let notes = try tx.related(Note.user, of: user)                    // [Note], through the index on userID
    let count = try tx.count(Note.user, of: user)                      // counted in the index
    let writers = try tx.query(User.self, "notes.@count > 0 AND NONE notes.text CONTAINS[c] 'draft'").all()
    let json = try tx.exportJSON(user)                                 // the user with its notes nested, JSON keys reversed
    print(author as Any, notes, count, writers, json as Any)
}
try store.write { tx in try tx.delete(User.self, key: 6) }             // cascade: the user's notes go too
// end snippet: relationships

// snippet: many-to-many
struct Ingredient: Record {
    var id: String
    var name: String
    static let primaryKey = \Ingredient.id
}
struct Recipe: Record {
    var id: String
    var name: String
    var ingredientIDs: [String]                      // many-to-many as a key list (multi-value index)
    static let primaryKey = \Recipe.id
    static let ingredients = ToMany<Recipe, Ingredient>("ingredients", \.ingredientIDs, inverse: "recipes")
    static let relationships: [AnyRelationship<Recipe>] = [.init(ingredients)]
}
try store.read { tx in
    let ingredients = try tx.related(Recipe.ingredients, of: pancake)  // [Ingredient], in list order
    let withEgg = try tx.query(Recipe.self, "ANY ingredients.name == %@ ORDER BY name DESC", "egg").all()   // Lidenbrock
    print(ingredients, withEgg)
}
// end snippet: many-to-many

try await importing(store, payload: directory.appendingPathComponent("users.json"))
try await observing(store)
try await replicating(store)

// snippet: full-text
struct Post: Record {
    var id: Int64
    var title: String
    var body: String
    static let primaryKey = \Post.id
    static let indexes: [IndexDefinition<Post>] = [.fullText(\.title, \.body, weights: [2, 1])]
}
try store.write { tx in
    try tx.upsert([Post(id: 1, title: "Readers and writers", body: "LMDB readers never block the writer."),
                   Post(id: 2, title: "Über Köln", body: "Die Straße am Rhein, mit LMDB-Tipps.")])
}
try store.read { tx in
    // every word, OR, NOT, "phrases", prefix*, NEAR(a b, 5), title:word; case and accents folded
    let request = tx.query(Post.self).where(.matches(\.body, "lmdb (strasse OR \"never block\")"))
        .sorted(by: .relevance).limit(10)                              // BM25, best first
    for (post, score) in try request.scored() {
        print(post.id, score, try request.snippet(post.body, field: "body", words: 8, open: "[", close: "]"))
    }   // 1 … [LMDB] readers [never block] the writer, then 2 … Die [Straße] am Rhein, mit [LMDB]-Tipps
}
// end snippet: full-text

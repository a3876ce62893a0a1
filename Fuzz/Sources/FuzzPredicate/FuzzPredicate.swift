import Foundation
@testable import Strata
@testable import StrataQuery

/// Arbitrary bytes as a predicate format string: the parser either parses or throws
/// `.invalidQuery`; what parses is planned, explained, counted and run against a small store with
/// indexed and unindexed fields of every kind, as `tx.query(entity:).where(format, arguments:)`
/// does. Nothing may trap, overflow the stack or hang (`-timeout` catches a hang, such as a
/// `MATCHES` pattern that backtracks without end). `name` and `body` have a full-text index, so
/// `SEARCH` operands reach the text query grammar (terms, `OR`, `NOT`, phrases, prefixes, `NEAR`,
/// `field:` scopes) and the text access path.
struct Item: Record {
    var id: Int64
    var name: String
    var score: Double?
    var tags: [String]
    var created: Date
    var uuid: UUID
    var flag: Bool
    var nested: Nested?
    var body: String?
    struct Nested: Codable, Sendable { var city: String; var zip: Int }
    static let primaryKey = \Item.id
    static var indexes: [IndexDefinition<Item>] {
        [.index(\.name, collation: .caseAndDiacriticInsensitive), .index(\.score), .index(\.created), .index(\.tags, multiValue: true),
         .fullText(\.name, \.body, weights: [2, 1], stemming: .english)]
    }
}

let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fuzz-predicate-\(getpid())").path
let store: Store = {
    let store = try! Store(path: storePath)
    atexit { try? FileManager.default.removeItem(atPath: storePath) }
    let names = ["Ann", "bob", "Élan", "zoë", "", "a*b?c", "Fünke", "O'Hara"]
    let bodies = ["LMDB is a memory-mapped key-value store", "Swift on Linux, Strata over lmdb", "東京タワーの夜景",
                  "full-text search: terms, phrases, prefixes", "Ünïcödé ÉLAN élan Fünke funke", "running runs ran"]
    try! store.write { tx in
        for id in 1...60 {
            try tx.upsert(Item(id: Int64(id), name: names[id % names.count] + "\(id % 7)", score: id % 5 == 0 ? nil : Double(id) / 3,
                               tags: Array(names.prefix(id % 4)), created: Date(timeIntervalSince1970: Double(id) * 86_400),
                               uuid: UUID(), flag: id % 2 == 0, nested: id % 3 == 0 ? nil : .init(city: names[id % 3], zip: id),
                               body: id % 7 == 0 ? nil : bodies[id % bodies.count] + " \(names[id % names.count]) \(id)"))
        }
    }
    return store
}()
let fields: Set<String> = ["id", "name", "score", "tags", "created", "uuid", "flag", "nested", "body"]
let arguments: [any Sendable] = ["Ann", 3, 2.5, Date(timeIntervalSince1970: 86_400 * 10), ["bob", "zoë"], "name", 7, "x"]

func fuzzPredicate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let format = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    // The parser on its own, with and without field checks, with every prefix of the arguments.
    let used = count % (arguments.count + 1)
    _ = try? PredicateFormat.parse(format, arguments: Array(arguments.prefix(used)), entity: "Item", fields: fields)
    _ = try? PredicateFormat.parse(format, arguments: Array(arguments.prefix(used)), entity: "Item", fields: nil)
    _ = try? PredicateFormat.parseSort(format, entity: "Item", fields: nil)
    // Through the store: typed and untyped queries run what parsed.
    do {
        try store.read { tx in
            let typed = try tx.query(Item.self).where(format, arguments: Array(arguments.prefix(used)))
            _ = try typed.explain()
            _ = try typed.count()
            _ = try typed.limit(5).all()
            let untyped = try tx.query(entity: "Item").where(format, arguments: Array(arguments.prefix(used)))
            _ = try untyped.all()
        }
    } catch let error as StrataError {
        switch error.code {
        case .invalidQuery, .invalidPath, .typeMismatch, .invalidValue, .unknownField: break
        default: preconditionFailure("unexpected error for a query: \(error)")
        }
    } catch {
        preconditionFailure("not a StrataError: \(error)")
    }
    return 0
}

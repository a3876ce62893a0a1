import Foundation
import Hummingbird
import HummingbirdTesting
import Strata
import StrataStudio
import TestSupport

/// A store of authors and their books (a to-one relationship, an index on `year`), with a change
/// log, and a studio serving it.
struct StudioFixture {
    static let schema = #"""
    {"entities": {
      "Author": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string", "json": "full_name"}}},
      "Book": {"primaryKey": "id",
               "fields": {"id": {"type": "int"}, "title": {"type": "string"}, "authorId": {"type": "int"},
                          "year": {"type": "int"}, "note": {"type": "string", "default": "none"}},
               "indexes": [{"fields": ["year"]}],
               "relationships": {"author": {"toOne": "Author", "field": "authorId"}}}
    }}
    """#

    let directory: TemporaryDirectory
    let store: Store
    let studio: Studio
    let entities: [String: EntityDescription]

    /// `books` books (ids 1…books, years cycling over 10), 3 authors; `configure` changes the store's configuration.
    init(books: Int = 25, options: StudioOptions = StudioOptions(token: "test-token"),
         configure: (inout Store.Configuration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("studio")
        var configuration = Store.Configuration()
        configure(&configuration)
        store = try Store(path: directory.path("books.strata"), configuration: configuration)
        let file = try SchemaFile(json: Data(Self.schema.utf8))
        entities = Dictionary(uniqueKeysWithValues: file.entities.map { ($0.name, $0) })
        try store.enableChangeLog(retention: .commits(1_000))
        let authors = (1...3).map { #"{"id": \#($0), "full_name": "Author \#($0)"}"# }.joined(separator: ",")
        try store.importJSON(Data("[\(authors)]".utf8), entity: entities["Author"]!)
        let list = (1...books).map { #"{"id": \#($0), "title": "Book \#($0)", "authorId": \#($0 % 3 + 1), "year": \#(2000 + $0 % 10)}"# }
        try store.importJSON(Data("[\(list.joined(separator: ","))]".utf8), entity: entities["Book"]!)
        studio = Studio(store: store, options: options)
    }

    /// The last committed transaction's id, as a reader sees it.
    func commits() throws -> Int { try store.read { tx in tx.snapshotID } }

    /// The record of `entity` with key `key` (a synchronous read, whatever the caller).
    func record(_ entity: String, _ key: Int64) throws -> StoredRecord? { try store.read { tx in try tx.record(entity: entity, key: .int(key)) } }

    /// How many records `entity` has.
    func count(_ entity: String) throws -> Int { try store.read { tx in try tx.count(entity: entity) } }

    /// Deletes a record in this process (a synchronous write, whatever the caller).
    func delete(_ entity: String, _ key: Int64) throws { try store.write { tx in _ = try tx.delete(entity: entity, key: .int(key)) } }

    /// Runs `body` with a client of the studio's router.
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let application = Application(router: studio.router())
        return try await application.test(.router, body)
    }
}

/// The headers of a request with the fixture's token.
let authorized: HTTPFields = [.authorization: "Bearer test-token"]

/// The headers of a request with the fixture's token and the header `name: value`.
func authorized(_ name: String, _ value: String) -> HTTPFields {
    var headers = authorized
    headers[.init(name)!] = value
    return headers
}

extension TestResponse {
    /// The body as JSON.
    var json: [String: Any] {
        get throws {
            let data = Data(buffer: body)
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw StudioError(.internalServerError, "test", "not a JSON object: \(String(buffer: body))")
            }
            return object
        }
    }

    /// The error code of an error body.
    var errorCode: String? { (try? json)?["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } }
}

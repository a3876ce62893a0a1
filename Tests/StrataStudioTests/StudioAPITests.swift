import Foundation
import Hummingbird
import HummingbirdTesting
import Strata
import StrataStudio
import Testing
import TestSupport

@Suite struct StudioAPITests {
    @Test func entitiesListTheirCounts() async throws {
        let fixture = try StudioFixture(books: 25)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities", method: .get, headers: authorized) { response in
                #expect(response.status == .ok)
                let entities = try response.json["entities"] as! [[String: Any]]
                #expect(entities.map { $0["name"] as! String } == ["Author", "Book"])
                #expect(entities.map { $0["records"] as! Int } == [3, 25])
                #expect(entities[1]["relationships"] as? Int == 1)
            }
        }
    }

    @Test func schemaHasFieldsTypesJSONKeysAndDefaults() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Author/schema", method: .get, headers: authorized) { response in
                let fields = try response.json["fields"] as! [[String: Any]]
                #expect(fields.first { $0["name"] as? String == "name" }?["jsonKey"] as? String == "full_name")
                #expect(fields.first { $0["name"] as? String == "id" }?["type"] as? String == "integer")
            }
            try await client.execute(uri: "/api/entities/Book/schema", method: .get, headers: authorized) { response in
                let fields = try response.json["fields"] as! [[String: Any]]
                let note = try #require(fields.first { $0["name"] as? String == "note" })
                #expect(note["default"] as? String == "none")
                #expect(note["optional"] as? Bool == false)
            }
            try await client.execute(uri: "/api/entities/Nope/schema", method: .get, headers: authorized) { response in
                #expect(response.status == .notFound)
                #expect(response.errorCode == "notFound")
            }
        }
    }

    @Test func indexesHaveEntriesAndSizes() async throws {
        let fixture = try StudioFixture(books: 25)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/indexes", method: .get, headers: authorized) { response in
                let indexes = try response.json["indexes"] as! [[String: Any]]
                // The index on year, and the one the relationship keeps on authorId.
                #expect(indexes.count == 2)
                let year = try #require(indexes.first { ($0["name"] as? String ?? "").contains("year") })
                #expect(year["entries"] as? Int == 25)
                #expect((year["bytes"] as? Int ?? 0) > 0)
            }
        }
    }

    @Test func relationshipsNameEntityTargetAndField() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            try await client.execute(uri: "/api/relationships", method: .get, headers: authorized) { response in
                let relationships = try response.json["relationships"] as! [[String: Any]]
                #expect(relationships.count == 1)
                #expect(relationships[0]["entity"] as? String == "Book")
                #expect(relationships[0]["target"] as? String == "Author")
                #expect(relationships[0]["keyField"] as? String == "authorId")
                #expect(relationships[0]["kind"] as? String == "toOne")
            }
        }
    }

    /// Walks every page with `after=` and returns the keys in the order served.
    static func walk(_ client: any TestClientProtocol, entity: String = "Book", sort: String = "", descending: Bool = false,
                     limit: Int = 7) async throws -> [String] {
        var keys: [String] = []
        var after: String?
        repeat {
            var uri = "/api/entities/\(entity)/records?limit=\(limit)&sort=\(sort)" + (descending ? "&desc=1" : "")
            if let after { uri += "&after=\(after)" }
            let page = try await client.execute(uri: uri, method: .get, headers: authorized) { response in
                #expect(response.status == .ok)
                return try response.json
            }
            let records = page["records"] as! [[String: Any]]
            #expect(records.count <= limit)
            keys += records.map { $0["key"] as! String }
            after = page["next"] as? String
        } while after != nil
        return keys
    }

    @Test func recordsPageByKeyWithAfterAndLimit() async throws {
        let fixture = try StudioFixture(books: 25)
        try await fixture.test { client in
            let keys = try await Self.walk(client)
            #expect(keys == (1...25).map(String.init))
            let backwards = try await Self.walk(client, descending: true)
            #expect(backwards == (1...25).reversed().map(String.init))
        }
    }

    @Test func recordsSortByAnIndexedFieldThenKey() async throws {
        let fixture = try StudioFixture(books: 25)
        try await fixture.test { client in
            let keys = try await Self.walk(client, sort: "year", limit: 4)
            let expected = (1...25).sorted { (2000 + $0 % 10, $0) < (2000 + $1 % 10, $1) }.map(String.init)
            #expect(keys == expected)
            // Descending by the field, equal values still by key ascending (the index's order read backwards).
            let descending = try await Self.walk(client, sort: "year", descending: true, limit: 4)
            #expect(descending == (1...25).sorted { ($0 % 10, $1) > ($1 % 10, $0) }.map(String.init))
            try await client.execute(uri: "/api/entities/Book/records?sort=title", method: .get, headers: authorized) { response in
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "notIndexed")
            }
            try await client.execute(uri: "/api/entities/Book/records?limit=0", method: .get, headers: authorized) { response in
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "invalidParameter")
            }
        }
    }

    @Test func recordsSortByAFoldedIndexAFieldWithNullsAndADate() async throws {
        let directory = try TemporaryDirectory("studio")
        let store = try Store(path: directory.path("names.strata"))
        let schema = #"{"entities": {"Name": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string"},"#
            + #" "rank": {"type": "int", "optional": true}, "born": {"type": "date"}},"#
            + #" "indexes": [{"fields": ["name"], "collation": "caseDiacriticInsensitive"}, {"fields": ["rank"]}, {"fields": ["born"]}]}}}"#
        let description = try SchemaFile(json: Data(schema.utf8)).entities[0]
        let names = ["émile", "Bob", "alice", "ALICE", "bob", "Zoë", "Émile", "carl", "alice", "Bob"]
        let records = names.enumerated().map { offset, name in
            #"{"id": \#(offset + 1), "name": "\#(name)", "rank": \#(offset % 3 == 0 ? "null" : String(offset % 4)), "born": "200\#(offset % 4)-01-02T03:04:05Z"}"#
        }
        try await store.importJSON(Data("[\(records.joined(separator: ","))]".utf8), entity: description)
        let studio = Studio(store: store, options: StudioOptions(token: "test-token"))
        // Folded names, then keys; null ranks first, then ranks, then keys; descending, equal values still by key.
        let folded = names.map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        let ids = Array(1...names.count)
        let byName = ids.sorted { (folded[$0 - 1], $0) < (folded[$1 - 1], $1) }.map(String.init)
        let byNameDescending = ids.sorted { (folded[$0 - 1], $1) > (folded[$1 - 1], $0) }.map(String.init)
        let rank = ids.map { ($0 - 1) % 3 == 0 ? -1 : ($0 - 1) % 4 }
        let byRank = ids.sorted { (rank[$0 - 1], $0) < (rank[$1 - 1], $1) }.map(String.init)
        let byRankDescending = ids.sorted { (rank[$0 - 1], $1) > (rank[$1 - 1], $0) }.map(String.init)
        // Dates (JSON text in a record) compare as dates.
        let born = ids.map { ($0 - 1) % 4 }
        let byBorn = ids.sorted { (born[$0 - 1], $0) < (born[$1 - 1], $1) }.map(String.init)
        let byBornDescending = ids.sorted { (born[$0 - 1], $1) > (born[$1 - 1], $0) }.map(String.init)
        try await Application(router: studio.router()).test(.router) { client in
            for (sort, expected, descending) in [("name", byName, byNameDescending), ("rank", byRank, byRankDescending),
                                                 ("born", byBorn, byBornDescending)] {
                for limit in [1, 2, 3] {
                    let forwards = try await Self.walk(client, entity: "Name", sort: sort, limit: limit)
                    #expect(forwards == expected, "\(sort) by \(limit)")
                    let backwards = try await Self.walk(client, entity: "Name", sort: sort, descending: true, limit: limit)
                    #expect(backwards == descending, "\(sort) desc by \(limit)")
                }
            }
        }
    }

    @Test func oneRecordWithItsRelatedRecords() async throws {
        let fixture = try StudioFixture(books: 6)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/records/4", method: .get, headers: authorized) { response in
                let body = try response.json
                #expect((body["record"] as! [String: Any])["title"] as? String == "Book 4")
                let related = body["related"] as! [[String: Any]]
                let author = try #require(related.first { $0["relationship"] as? String == "author" })
                #expect((author["records"] as! [[String: Any]]).map { $0["key"] as! String } == ["2"])
            }
            try await client.execute(uri: "/api/entities/Author/records/2", method: .get, headers: authorized) { response in
                let related = try response.json["related"] as! [[String: Any]]
                let books = try #require(related.first { $0["relationship"] as? String == "Book.author" })
                #expect(Set((books["records"] as! [[String: Any]]).map { $0["key"] as! String }) == ["1", "4"])
            }
            try await client.execute(uri: "/api/entities/Book/records/99", method: .get, headers: authorized) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func queryReturnsRowsAndTheAnalyzedPlan() async throws {
        let fixture = try StudioFixture(books: 25)
        try await fixture.test { client in
            let predicate = "year == 2003".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/api/entities/Book/query?predicate=\(predicate)", method: .get, headers: authorized) { response in
                #expect(response.status == .ok)
                let body = try response.json
                #expect(Set((body["rows"] as! [[String: Any]]).map { $0["key"] as! String }) == ["3", "13", "23"])
                let steps = (body["plan"] as! [String: Any])["steps"] as! [[String: Any]]
                #expect(steps.first?["operation"] as? String == "IndexScan")
                #expect(steps.allSatisfy { $0["actualRows"] != nil && $0["estimatedRows"] != nil && $0["seconds"] != nil })
                #expect((body["tree"] as! String).contains("actual 3 rows"))
            }
        }
    }

    @Test func aParseErrorReturnsItsColumn() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            let predicate = "title == ".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/api/entities/Book/query?predicate=\(predicate)", method: .get, headers: authorized) { response in
                #expect(response.status == .badRequest)
                let error = try response.json["error"] as! [String: Any]
                #expect(error["code"] as? String == "invalidQuery")
                #expect(error["column"] as? Int == 10)
                #expect((error["message"] as! String).contains("at column 10"))
            }
        }
    }

    @Test func statsChangesMigrationsAndVerify() async throws {
        let fixture = try StudioFixture(books: 5)
        try await fixture.test { client in
            try await client.execute(uri: "/api/stats", method: .get, headers: authorized) { response in
                let body = try response.json
                #expect((body["mapSize"] as! Int) > 0)
                #expect((body["pagesInUse"] as! Int) > 0)
                #expect((body["pagesInFile"] as! Int) == (body["pagesInUse"] as! Int) + (body["freePages"] as! Int))
            }
            try await client.execute(uri: "/api/changes", method: .get, headers: authorized) { response in
                let body = try response.json
                #expect(body["enabled"] as? Bool == true)
                let changes = body["changes"] as! [[String: Any]]
                #expect(changes.filter { $0["entity"] as? String == "Book" && $0["operation"] as? String == "insert" }.count == 5)
            }
            try await client.execute(uri: "/api/migrations", method: .get, headers: authorized) { response in
                let migrations = try response.json["migrations"] as! [Any]
                #expect(migrations.isEmpty)
            }
            try await client.execute(uri: "/api/verify", method: .get, headers: authorized) { response in
                let body = try response.json
                #expect(body["consistent"] as? Bool == true)
                #expect((body["entities"] as! [[String: Any]]).map { $0["recordsChecked"] as! Int } == [3, 5])
            }
        }
    }
}

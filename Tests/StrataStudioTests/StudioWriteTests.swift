import Foundation
import Hummingbird
import HummingbirdTesting
import Strata
import StrataStudio
import Testing

@Suite struct StudioWriteTests {
    static let writable = StudioOptions(writable: true, token: "test-token")

    @Test func aRecordIsSavedAsJSONThroughTheImporter() async throws {
        let fixture = try StudioFixture(books: 3, options: Self.writable)
        try await fixture.test { client in
            let record = #"{"id": 2, "title": "Renamed", "authorId": 3, "year": 1999}"#
            try await client.execute(uri: "/api/entities/Book/records", method: .put, headers: authorized, body: ByteBuffer(string: record)) { response in
                #expect(response.status == .ok)
                let updated = try response.json["updated"] as? Int
                #expect(updated == 1)
            }
        }
        #expect(try fixture.record("Book", 2)?["title"] == .string("Renamed"))
    }

    @Test func aRecordTheSchemaRefusesWritesNothing() async throws {
        let fixture = try StudioFixture(books: 3, options: Self.writable)
        let before = try fixture.commits()
        try await fixture.test { client in
            for body in [#"{"id": 2, "title": "x", "authorId": "three", "year": 1999}"#, #"{"id": 2, "title": "#, "[1, 2]", "<script>alert(1)</script>"] {
                try await client.execute(uri: "/api/entities/Book/records", method: .put, headers: authorized, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    let error = try response.json["error"] as! [String: Any]
                    #expect(!(error["message"] as! String).isEmpty)
                }
            }
        }
        #expect(try fixture.commits() == before)
        #expect(try fixture.record("Book", 2)?["title"] == .string("Book 2"))
    }

    @Test func aRecordIsDeleted() async throws {
        let fixture = try StudioFixture(books: 3, options: Self.writable)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/records/2", method: .delete, headers: authorized) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/entities/Book/records/2", method: .delete, headers: authorized) { response in
                #expect(response.status == .notFound)
            }
        }
        #expect(try fixture.count("Book") == 2)
    }

    @Test func anImportReportsItsDryRunBeforeItCommits() async throws {
        let fixture = try StudioFixture(books: 3, options: Self.writable)
        let file = #"[{"id": 10, "title": "New", "authorId": 1, "year": 2020}, {"id": 1, "title": "Book 1 again", "authorId": 2, "year": 2001}]"#
        let before = try fixture.commits()
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/import?dryRun=1", method: .post, headers: authorized, body: ByteBuffer(string: file)) { response in
                let report = try response.json
                #expect(report["dryRun"] as? Bool == true)
                #expect(report["inserted"] as? Int == 1)
                #expect(report["updated"] as? Int == 1)
                // ImportReport.json, the form `strata import --format json` prints (without its phases).
                #expect(Set(report.keys) == ["entity", "dryRun", "records", "inserted", "updated", "unchanged", "deleted",
                                             "skipped", "failures", "related", "seconds", "summary"])
                #expect(report["records"] as? Int == 2 && report["deleted"] as? Int == 0)
                #expect((report["failures"] as? [Any])?.isEmpty == true && (report["related"] as? [String: Any])?.isEmpty == true)
            }
        }
        #expect(try fixture.commits() == before)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/import?dryRun=0", method: .post, headers: authorized, body: ByteBuffer(string: file)) { response in
                let dryRun = try response.json["dryRun"] as? Bool
                #expect(dryRun == false)
            }
        }
        #expect(try fixture.count("Book") == 4)
    }
}

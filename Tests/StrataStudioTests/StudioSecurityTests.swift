import Foundation
import Hummingbird
import HummingbirdTesting
import Strata
import StrataStudio
import Testing

@Suite struct StudioSecurityTests {
    @Test func everyRouteNeedsTheToken() async throws {
        let fixture = try StudioFixture()
        let routes = fixture.studio.routes
        try await fixture.test { client in
            for route in routes {
                let uri = route.path.replacingOccurrences(of: "{entity}", with: "Book").replacingOccurrences(of: "{key}", with: "1")
                for headers: HTTPFields in [[:], [.authorization: "Bearer wrong-token"], [.cookie: "strata-studio=wrong"]] {
                    try await client.execute(uri: uri + "?token=nope", method: HTTPRequest.Method(route.method)!, headers: headers) { response in
                        #expect(response.status == .unauthorized, "\(route)")
                        #expect(response.errorCode == "unauthorized")
                    }
                }
            }
        }
    }

    @Test func theQueryTokenBecomesAStrictHttpOnlyCookie() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            let cookie = try await client.execute(uri: "/?token=test-token", method: .get) { response in
                #expect(response.status == .ok)
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
                return String(cookie.split(separator: ";")[0])
            }
            #expect(cookie == "strata-studio=test-token")
            try await client.execute(uri: "/api/entities", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test func otherHostsAreRefused() async throws {
        let fixture = try StudioFixture()
        fixture.studio.port = 8123
        try await fixture.test { client in
            for host in ["evil.example:8123", "127.0.0.1.evil.example:8123", "localhost:9999", "127.0.0.2:8123"] {
                try await client.execute(uri: "/api/entities", method: .get, headers: authorized("Host", host)) { response in
                    #expect(response.status == .forbidden, "\(host)")
                    #expect(response.errorCode == "badHost")
                }
            }
            for host in ["127.0.0.1:8123", "localhost:8123"] {
                try await client.execute(uri: "/api/entities", method: .get, headers: authorized("Host", host)) { response in
                    #expect(response.status == .ok, "\(host)")
                }
            }
        }
    }

    @Test func writesFromAnotherOriginAreRefused() async throws {
        let fixture = try StudioFixture(options: StudioOptions(writable: true, token: "test-token"))
        fixture.studio.port = 8123
        let before = try fixture.commits()
        try await fixture.test { client in
            for (name, value) in [("Origin", "http://evil.example"), ("Origin", "http://127.0.0.1:9999"), ("Sec-Fetch-Site", "cross-site")] {
                try await client.execute(uri: "/api/entities/Book/records/1", method: .delete, headers: authorized(name, value)) { response in
                    #expect(response.status == .forbidden)
                    #expect(response.errorCode == "badOrigin")
                }
            }
        }
        #expect(try fixture.commits() == before)
        try await fixture.test { client in
            try await client.execute(uri: "/api/entities/Book/records/1", method: .delete, headers: authorized("Origin", "http://127.0.0.1:8123")) { response in
                #expect(response.status == .ok)
            }
        }
        #expect(try fixture.commits() == before + 1)
    }

    @Test func everyAnswerHasAContentSecurityPolicyWithoutInlineScript() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            for uri in ["/", "/studio.js", "/api/entities", "/api/nothing-here"] {
                try await client.execute(uri: uri, method: .get, headers: authorized) { response in
                    let policy = try #require(response.headers[.contentSecurityPolicy], "\(uri)")
                    #expect(policy.contains("default-src 'none'"))
                    #expect(policy.contains("script-src 'self'"))
                    #expect(policy.contains("connect-src 'self'"))
                    #expect(!policy.contains("unsafe-inline"))
                    #expect(response.headers[.init("X-Content-Type-Options")!] == "nosniff")
                }
            }
            try await client.execute(uri: "/", method: .get, headers: authorized) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<script src=\"/studio.js\" defer></script>"))
                #expect(!page.contains("<script>"))
                #expect(!page.contains("onclick"))
            }
        }
    }

    @Test func theScriptNeverWritesMarkup() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            try await client.execute(uri: "/studio.js", method: .get, headers: authorized) { response in
                let script = String(buffer: response.body)
                for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                    #expect(!script.contains(sink), "\(sink)")
                }
            }
        }
    }

    @Test func bodiesOverTheLimitAreRefusedWithATypedError() async throws {
        let fixture = try StudioFixture(options: StudioOptions(writable: true, token: "test-token", maxBodyBytes: 1_024))
        let before = try fixture.commits()
        try await fixture.test { client in
            let big = #"{"id": 500, "title": "\#(String(repeating: "x", count: 4_000))", "authorId": 1, "year": 2001}"#
            try await client.execute(uri: "/api/entities/Book/records", method: .put, headers: authorized, body: ByteBuffer(string: big)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.errorCode == "bodyTooLarge")
            }
        }
        #expect(try fixture.commits() == before)
    }

    @Test func aReadOnlyStudioRefusesEveryWriteRoute() async throws {
        let fixture = try StudioFixture()
        let writes = fixture.studio.routes.filter(\.writes)
        #expect(writes.count == 3)
        let before = try fixture.commits()
        let record = #"{"id": 1, "title": "changed", "authorId": 1, "year": 1999}"#
        try await fixture.test { client in
            for route in writes {
                let uri = route.path.replacingOccurrences(of: "{entity}", with: "Book").replacingOccurrences(of: "{key}", with: "1")
                for suffix in ["", "?dryRun=0"] {
                    try await client.execute(uri: uri + suffix, method: HTTPRequest.Method(route.method)!, headers: authorized,
                                             body: ByteBuffer(string: route.method == "POST" ? "[\(record)]" : record)) { response in
                        #expect(response.status == .forbidden, "\(route)")
                        #expect(response.errorCode == "readOnly")
                    }
                }
            }
        }
        #expect(try fixture.commits() == before)
        #expect(try fixture.record("Book", 1)?["title"] == .string("Book 1"))
    }

    @Test func queriesStopAtTheTimeLimit() async throws {
        let fixture = try StudioFixture(books: 3_000) { $0.queryTimeout = .nanoseconds(1) }
        try await fixture.test { client in
            let predicate = #"title MATCHES ".*9.*""#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/api/entities/Book/query?predicate=\(predicate)", method: .get, headers: authorized) { response in
                #expect(response.status == .requestTimeout)
                #expect(response.errorCode == "timeout")
            }
        }
    }
}

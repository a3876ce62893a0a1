import Foundation
import Hummingbird
import HummingbirdTesting
import StrataStudio
import Testing

@Suite struct StudioOpenAPITests {
    /// The operations the document describes: each `  /path:` line at the top of `paths`, then
    /// each `    method:` line under it.
    static func operations(_ document: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch"].contains(method) { operations.insert("\(method.uppercased()) \(path)") }
            } else if !line.isEmpty, !line.hasPrefix(" ") {
                inPaths = false
            }
        }
        return operations
    }

    @Test func everyRouteIsInTheDocumentAndNoOther() throws {
        let fixture = try StudioFixture()
        let routes = Set(fixture.studio.routes.map(\.description))
        let documented = Self.operations(StudioOpenAPI.document)
        #expect(routes.count == fixture.studio.routes.count)
        #expect(routes.count >= 18)
        #expect(routes.subtracting(documented).isEmpty, "routes the document lacks")
        #expect(documented.subtracting(routes).isEmpty, "documented operations there is no route for")
    }

    @Test func theDocumentIsServed() async throws {
        let fixture = try StudioFixture()
        try await fixture.test { client in
            try await client.execute(uri: "/api/openapi.yaml", method: .get, headers: authorized) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == StudioOpenAPI.document)
            }
        }
    }
}

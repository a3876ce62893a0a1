import Foundation
import Hummingbird
import Strata

/// The write routes, served by a studio started with `--write` only (a read-only one answers
/// 403 `readOnly` before reading the body): a record saved as JSON through the importer (its dry
/// run first, so a record the schema refuses writes nothing), a record deleted, a JSON file
/// imported with its dry-run report or committed.
extension Studio {
    func addWriteRoutes(_ router: StudioRouter) {
        router.add(.put, "/api/entities/{entity}/records", writes: true) { [self] request, context in
            let name = try context.parameters.require("entity")
            let body = try await readBody(request)
            guard (try? JSONSerialization.jsonObject(with: body)) is [String: Any] else {
                throw StudioError(.badRequest, "malformedJSON", "the record must be one JSON object")
            }
            let dryRun = try store.importJSON(body, storedEntity: name, options: ImportOptions(dryRun: true))
            if let failure = dryRun.failures.first { throw StudioError(failure) }
            let report = try store.importJSON(body, storedEntity: name)
            return StudioResponse.json(report.json)
        }
        router.add(.delete, "/api/entities/{entity}/records/{key}", writes: true) { [store] _, context in
            let name = try context.parameters.require("entity")
            let key = try context.parameters.require("key")
            let deleted = try store.write { tx in try tx.delete(entity: name, key: .string(key)) }
            guard deleted else { throw StudioError(.notFound, "notFound", "\(name) has no record with key \(key.prefix(80))") }
            return StudioResponse.json(.object([JSONMember(key: "deleted", value: .bool(true))]))
        }
        router.add(.post, "/api/entities/{entity}/import", writes: true) { [self] request, context in
            let name = try context.parameters.require("entity")
            let dryRun = request.uri.queryParameters["dryRun"].map { $0 == "1" || $0 == "true" } ?? true
            let body = try await readBody(request)
            let report = try store.importJSON(body, storedEntity: name, options: ImportOptions(dryRun: dryRun))
            return StudioResponse.json(report.json)
        }
    }

    /// The request's body, at most ``StudioOptions/maxBodyBytes``; a larger one is 413 `bodyTooLarge`.
    func readBody(_ request: Request) async throws -> Data {
        let limit = options.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw StudioError(.contentTooLarge, "bodyTooLarge", "the request body has \(length) bytes; the studio reads at most \(limit)")
        }
        var request = request
        do {
            return Data(buffer: try await request.collectBody(upTo: limit))
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw StudioError(.contentTooLarge, "bodyTooLarge", "the request body is over \(limit) bytes, the most the studio reads")
        }
    }
}

import Foundation
import Hummingbird
import Strata

/// The query route: a predicate in the tool's format language, its rows, and its plan with each
/// step's estimated and actual rows and time (what `strata explain --analyze` prints, from the
/// same ``QueryRequest/analyze()``).
extension Studio {
    func addQueryRoutes(_ router: StudioRouter) {
        router.add(.get, "/api/entities/{entity}/query") { [self] request, context in
            let name = try context.parameters.require("entity")
            let parameters = request.uri.queryParameters
            let predicate = parameters["predicate"].map(String.init) ?? ""
            let sort = parameters["sort"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let limit = try pageSize(parameters["limit"].map(String.init))
            let json = try await store.read { tx -> JSONValue in
                var query = try tx.query(entity: name)
                if !predicate.trimmingCharacters(in: .whitespaces).isEmpty { query = try query.where(predicate, arguments: []) }
                if let sort { query = try query.sorted(by: sort) }
                let (plan, steps) = try query.analyze()
                let rows = try query.limit(min(limit, query.query.limit ?? limit)).all()   // the predicate's LIMIT, at most a page
                return .object([
                    JSONMember(key: "entity", value: .string(name)),
                    JSONMember(key: "predicate", value: .string(predicate)),
                    JSONMember(key: "rows", value: .array(rows.map { record in
                        .object([JSONMember(key: "key", value: .string(RecordPage.keyText(record.key))),
                                 JSONMember(key: "record", value: record.jsonObject())])
                    })),
                    JSONMember(key: "plan", value: plan.jsonObject(steps)),
                    JSONMember(key: "tree", value: .string(plan.tree(steps))),
                ])
            }
            return StudioResponse.json(json)
        }
    }
}

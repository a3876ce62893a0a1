import Foundation
import Hummingbird
import Strata

/// The store routes: statistics with page use, the change feed, the migration history and `verify`.
extension Studio {
    func addStoreRoutes(_ router: StudioRouter) {
        router.add(.get, "/api/stats") { [store] _, _ in
            let statistics = try store.statistics()
            let pages = try Store.checkPages(at: statistics.path)
            return StudioResponse.json(.object([
                JSONMember(key: "mapSize", value: .int(Int64(statistics.mapSize))),
                JSONMember(key: "usedBytes", value: .int(Int64(statistics.usedBytes))),
                JSONMember(key: "readers", value: .int(Int64(statistics.readers))),
                JSONMember(key: "maxReaders", value: .int(Int64(statistics.maxReaders))),
                JSONMember(key: "pageSize", value: .int(Int64(pages.pageSize))),
                JSONMember(key: "pagesInFile", value: .int(Int64(pages.lastPage + 1))),
                JSONMember(key: "pagesInUse", value: .int(Int64(pages.pages + 2))),
                // The file's pages the newest snapshot does not reach (LMDB's two meta pages aside):
                // free pages and pages old readers may still hold.
                JSONMember(key: "freePages", value: .int(Int64(max(0, pages.lastPage + 1 - pages.pages - 2)))),
                JSONMember(key: "entities", value: .array(statistics.entities.map { entity in
                    .object([
                        JSONMember(key: "name", value: .string(entity.name)),
                        JSONMember(key: "records", value: .int(Int64(entity.records))),
                        JSONMember(key: "bytes", value: .int(Int64(entity.bytes))),
                        JSONMember(key: "indexBytes", value: .int(Int64(entity.indexes.reduce(0) { $0 + $1.bytes }
                            + entity.fullTextIndexes.reduce(0) { $0 + $1.bytes }))),
                    ])
                })),
            ]))
        }
        router.add(.get, "/api/changes") { [self] request, _ in
            let parameters = request.uri.queryParameters
            let limit = try pageSize(parameters["limit"].map(String.init))
            let afterText = parameters["after"].map(String.init)
            let text = try await store.read { tx -> String in
                guard let range = try tx.changeLogRange() else {
                    let enabled = try tx.changeLogRetention() != nil
                    return JSONValue.object([JSONMember(key: "enabled", value: .bool(enabled)),
                                             JSONMember(key: "changes", value: .array([]))]).jsonText
                }
                // The newest `limit` commits unless `after` is given.
                let after: UInt64
                if let afterText {
                    guard let value = UInt64(afterText) else {
                        throw StudioError(.badRequest, "invalidParameter", "after must be a commit's sequence number (it is '\(afterText.prefix(40))')")
                    }
                    after = value
                } else {
                    after = range.upperBound >= UInt64(limit) ? max(range.lowerBound, range.upperBound - UInt64(limit) + 1) - 1 : 0
                }
                // Each change as the line `strata changes` writes for it (ChangeFeedLines), in an array.
                var lines: [UInt8] = []
                for commit in try tx.loggedCommits(after: after, limit: limit) {
                    try ChangeFeedLines.append(commit, from: tx, to: &lines)
                }
                let objects = lines.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
                return "{\"enabled\":true,\"first\":\(range.lowerBound),\"last\":\(range.upperBound),\"changes\":["
                    + objects.joined(separator: ",") + "]}"
            }
            return StudioResponse.text(text, type: "application/json; charset=utf-8")
        }
        router.add(.get, "/api/migrations") { [store] _, _ in
            let history = try store.migrationHistory()
            let dates = ISO8601DateFormatter()
            return StudioResponse.json(.object([JSONMember(key: "migrations", value: .array(history.map { migration in
                .object([
                    JSONMember(key: "order", value: .int(Int64(migration.order))),
                    JSONMember(key: "date", value: .string(dates.string(from: migration.date))),
                    JSONMember(key: "name", value: .string(migration.name)),
                ])
            }))]))
        }
        router.add(.get, "/api/verify") { [store] _, _ in
            let path = try store.statistics().path
            let pages = try Store.checkPages(at: path)
            let results = try await store.read { tx in try tx.entityNames().map { try tx.verifyIndexes(entity: $0) } }
            return StudioResponse.json(.object([
                JSONMember(key: "pages", value: .int(Int64(pages.pages))),
                JSONMember(key: "databases", value: .int(Int64(pages.databases))),
                JSONMember(key: "consistent", value: .bool(results.allSatisfy(\.isConsistent))),
                JSONMember(key: "entities", value: .array(results.map { result in
                    .object([
                        JSONMember(key: "entity", value: .string(result.entity)),
                        JSONMember(key: "recordsChecked", value: .int(Int64(result.recordsChecked))),
                        JSONMember(key: "entriesExpected", value: .int(Int64(result.entriesExpected))),
                        JSONMember(key: "problems", value: .array(result.problems.map { .string($0) })),
                    ])
                })),
            ]))
        }
    }
}

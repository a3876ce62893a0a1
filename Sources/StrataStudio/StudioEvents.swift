import Foundation
import Hummingbird
import Strata

/// `/api/events`: a server-sent-events stream with one `commit` event per commit the store's
/// observation notices (this process's at once, other processes' through the store's commit
/// watch), each carrying the snapshot id and every entity's record count; the first event is the
/// state when the stream opens.
extension Studio {
    func addEventRoutes(_ router: StudioRouter) {
        router.add(.get, "/api/events") { [store] _, _ in
            let observation = store.observe(entities: []) { tx in try StoreSnapshot(tx) }
            let body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                for try await snapshot in observation {
                    try await writer.write(ByteBuffer(string: "event: commit\ndata: \(snapshot.json.jsonText)\n\n"))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
    }
}

/// What an event tells of the store: the snapshot id (which grows with every commit) and each
/// entity's record count.
struct StoreSnapshot: Sendable, Equatable {
    var snapshot: Int
    var counts: [String: Int]

    init(_ tx: ReadTransaction) throws {
        snapshot = tx.snapshotID
        counts = Dictionary(uniqueKeysWithValues: try tx.entityNames().map { ($0, try tx.count(entity: $0)) })
    }

    var json: JSONValue {
        .object([
            JSONMember(key: "snapshot", value: .int(Int64(snapshot))),
            JSONMember(key: "counts", value: .object(counts.keys.sorted().map { JSONMember(key: $0, value: .int(Int64(counts[$0]!))) })),
        ])
    }
}

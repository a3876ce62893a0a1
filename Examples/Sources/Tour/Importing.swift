import Foundation
import Strata

func importing(_ store: Store, payload url: URL) async throws {
    let data = Data(#"{"users": [{"id": 9, "first_name": "Lucille", "last_name": "Bluth", "lucky_number": 2, "tags": [], "created_at": "2021-02-03T04:05:06Z", "city": "Berlin"}]}"#.utf8)
    try Data(#"[{"id": 6, "first_name": "Shawn", "last_name": "Merrill", "tags": [], "created_at": 1700000000, "notes": [{"id": 0, "text": "diary, episode 1"}]}]"#.utf8).write(to: url)
    // snippet: importing
    let report = try await store.importJSON(contentsOf: url, as: User.self,
                                            options: ImportOptions(related: [.record(Note.self)]))   // streamed, with nested notes
    let synced = try await store.importJSON(data, as: User.self, options: .init(
        mode: .sync(scope: "lastName == %@", "Bluth"),   // delete records missing from the payload, only inside the scope
        rootKey: "users",                                 // {"users": [...]}
        onError: .skip,                                   // default .abort: nothing is written when any record fails
        progress: { p in print(p.fractionCompleted ?? 0) }))
    print(report, synced)
    // inserted 1 · updated 0 · unchanged 0 · deleted 0 · skipped 0 · ignored keys city ×1 · 0.00 s
    // end snippet: importing
}

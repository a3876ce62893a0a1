import Foundation
import Strata

// snippet: importing-type
struct Contact: Record, Equatable {
    var id: Int64
    var name: String
    var city: String?
    var lucky: Int?
    var signedUp: Date
    static let primaryKey = \Contact.id
    static let jsonKeys: JSONKeys<Contact> = [\.lucky: "lucky_number"]   // what convention cannot find
}
// end snippet: importing-type

func importing(path: String, directory: URL) async throws {
    let store = try Store(path: path)
    // snippet: importing-upsert
    let payload = Data("""
        {"contacts": [
          {"id": 1, "name": "Ann", "city": "Berlin", "lucky_number": 7, "signed_up": "2024-05-01T09:30:00Z"},
          {"id": 2, "name": "Bob", "city": "Berlin", "signed_up": "2024-05-02"},
          {"_id": 3, "NAME": "Cem", "city": "Paris", "signed_up": 1714608000, "shoe_size": 44}
        ]}
        """.utf8)
    let report = try await store.importJSON(payload, as: Contact.self, options: ImportOptions(rootKey: "contacts"))
    print(report)   // inserted 3 · updated 0 · unchanged 0 · deleted 0 · skipped 0 · ignored keys shoe_size ×1 · …
    // end snippet: importing-upsert
    check(report.inserted == 3 && report.ignoredKeys == ["shoe_size": 1], "\(report)")

    // snippet: importing-null
    let update = Data(#"[{"id": 1, "city": null}, {"id": 2, "name": "Bob", "signed_up": "2024-05-02"}]"#.utf8)
    let second = try await store.importJSON(update, as: Contact.self)
    // Ann: city cleared by null, name and lucky_number left as stored (absent); Bob: unchanged
    // end snippet: importing-null
    let ann = try await store.read { tx in try tx.get(Contact.self, key: 1) }
    check(ann?.city == nil && ann?.name == "Ann" && ann?.lucky == 7, "\(String(describing: ann))")
    check(second.updated == 1 && second.unchanged == 1, "\(second)")

    // snippet: importing-sync
    let berlin = Data(#"[{"id": 2, "name": "Bob", "city": "Berlin", "signed_up": "2024-05-02"}]"#.utf8)
    var options = ImportOptions(mode: .sync(scope: "city == %@", "Berlin"), dryRun: true)
    let preview = try await store.importJSON(berlin, as: Contact.self, options: options)
    print(preview.deleted, preview.dryRun)   // 0 true: Ann's city is nil now, so she is outside the scope
    options.dryRun = false
    try await store.importJSON(berlin, as: Contact.self, options: options)   // Cem (Paris) is never a candidate
    // end snippet: importing-sync
    check(preview.dryRun && preview.transactions == 0)
    check(try await store.read { tx in try tx.count(Contact.self) } == 3)

    // snippet: importing-dates
    let legacy = Data(#"[{"id": 9, "name": "Dee", "signed_up": "1714608000"}]"#.utf8)
    try await store.importJSON(legacy, as: Contact.self, options: ImportOptions(dateFormats: ["signedUp": .secondsSince1970]))
    // end snippet: importing-dates
    let dee = try await store.read { tx in try tx.get(Contact.self, key: 9) }
    check(dee?.signedUp == Date(timeIntervalSince1970: 1_714_608_000))

    // snippet: importing-errors
    let mixed = Data(#"[{"id": 10, "name": "Eve", "signed_up": "yesterday"}, {"id": 11, "name": "Fay", "signed_up": "2024-06-01"}]"#.utf8)
    do {
        try await store.importJSON(mixed, as: Contact.self)   // .abort: nothing is written
    } catch let error as StrataError where error.code == .invalidRecord {
        print(error.message, error.record ?? -1)   // names record 1, the key 'signed_up' and what was expected
    }
    let skipped = try await store.importJSON(mixed, as: Contact.self, options: ImportOptions(onError: .skip))
    print(skipped.skipped, skipped.failures.map(\.message))   // 1, and why
    // end snippet: importing-errors
    check(skipped.skipped == 1 && skipped.inserted == 1)

    // snippet: importing-required
    do {
        try await store.importJSON(Data(#"[{"id": 5, "first_name": "Jo", "last_name": "Doe"}]"#.utf8), as: User.self)
    } catch let error as StrataError where error.code == .invalidRecord {
        print(error.message)   // 'tags' is required: the Swift default `= []` is not used by decoding
    }
    // end snippet: importing-required

    // snippet: importing-file
    let file = directory.appendingPathComponent("contacts.json")
    try Data(#"[{"id": 20, "name": "Gil", "signed_up": "2024-07-01"}]"#.utf8).write(to: file)
    let fromFile = try await store.importJSON(contentsOf: file, as: Contact.self, options: ImportOptions(
        progress: { progress in print(progress.recordsRead, progress.fractionCompleted ?? 0) }))
    // end snippet: importing-file
    check(fromFile.inserted == 1)
}

import Foundation
@testable import Strata
@testable import StrataQuery

/// Arbitrary bytes as a JSON import into an entity with every field kind, through the public
/// `store.importJSON(_:entity:options:)` (streaming parser, key mapping, value conversion, record
/// encoding and the diff against stored records) as a dry run, so that every input meets the same
/// store: malformed input throws `.malformedJSON`, records that do not map are skipped or throw
/// `.invalidRecord`; nothing may trap or hang.
let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fuzz-json-\(getpid())").path
let store: Store = {
    let store = try! Store(path: storePath)
    atexit { try? FileManager.default.removeItem(atPath: storePath) }
    return store
}()
let description = EntityDescription(name: "Doc", primaryKey: "id", fields: [
    FieldDescription("id", .integer), FieldDescription("name", .string, optional: true),
    FieldDescription("score", .double, optional: true), FieldDescription("ok", .bool, optional: true),
    FieldDescription("when", .date, optional: true), FieldDescription("tags", .array(.string), optional: true),
    FieldDescription("blob", .data, optional: true), FieldDescription("uuid", .uuid, optional: true),
    FieldDescription("link", .url, optional: true), FieldDescription("amount", .decimal, optional: true),
    FieldDescription("small", .float, optional: true), FieldDescription("any", .any, optional: true),
    FieldDescription("unixTime", .date, optional: true, dateFormat: .secondsSince1970),
], indexes: [IndexDescription(fields: ["name"], collation: .caseAndDiacriticInsensitive), IndexDescription(fields: ["tags"], multiValue: true)])
// A few stored records, so that the diff against stored bytes runs too.
let seeded: Void = {
    let seed = #"[{"id": 1, "name": "Ann", "tags": ["a"]}, {"id": 2, "score": 2.5, "when": "2024-01-02T03:04:05Z"}, {"id": 3}]"#
    try! store.importJSON(Data(seed.utf8), entity: description)
}()

func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = seeded
    let data = Data(bytes: start, count: count)
    let first = UInt8(count % 8)   // the options vary with the length, not with bytes the JSON needs
    let options = ImportOptions(mode: first & 1 == 0 ? .upsert : .sync, rootKey: first & 2 == 0 ? nil : "items",
                                onError: first & 4 == 0 ? .skip : .abort, dryRun: true)
    do {
        try store.importJSON(data, entity: description, options: options)
    } catch let error as StrataError {
        switch error.code {
        case .malformedJSON, .invalidRecord, .invalidValue, .typeMismatch: break
        default: preconditionFailure("unexpected error for a JSON payload: \(error)")
        }
    } catch {
        preconditionFailure("not a StrataError: \(error)")
    }
    return 0
}

import Foundation
import Strata

func storageFormat(path: String) throws {
    let store = try Store(path: path)
    try store.write { tx in try tx.insert(User(id: 1, firstName: "Ann", lastName: "Veal", luckyNumber: 7)) }
    // snippet: format-untyped
    try store.read { tx in
        print(try tx.entityNames())                                         // ["User"]
        let ann = try tx.record(entity: "User", key: .int(1))               // StoredRecord: key and fields by name
        print(ann?.fields.map(\.key) ?? [])                                 // ["id", "firstName", …] in field id order
        let description = try tx.entityDescription(named: "User")           // the schema, as `strata schema` prints it
        print(description.fields.map { "\($0.name): \($0.type)" })
    }
    // end snippet: format-untyped
    try store.read { tx in
        check(try tx.entityNames() == ["User"])
        check(try tx.record(entity: "User", key: .int(1))?.fields.first?.key == "id")
    }
    // snippet: format-statistics
    let statistics = try store.statistics()
    for entity in statistics.entities {
        print(entity.name, entity.records, entity.bytes, entity.indexes.map { "\($0.name): \($0.entries)" })
    }
    // end snippet: format-statistics
}

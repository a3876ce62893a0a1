import Foundation
@testable import Strata
@testable import StrataFormat

/// Arbitrary bytes as a stored record: the Codable decoder (into a type with every field kind),
/// the untyped reader (`StoredRecord`, what `strata verify`, `get` and `export` use) and the
/// filter's field selection either decode or throw a `StrataError`; none may trap or hang.
struct Address: Codable, Sendable { var street: String; var zip: Int? }
enum Mood: String, Codable, Sendable { case calm, busy }
struct Everything: Codable, Sendable {
    var id: Int64
    var flag: Bool?
    var small: Int8?
    var unsigned: UInt32?
    var big: UInt64?
    var double: Double?
    var float: Float?
    var text: String?
    var date: Date?
    var data: Data?
    var url: URL?
    var uuid: UUID?
    var decimal: Decimal?
    var mood: Mood?
    var numbers: [Int]?
    var address: Address?
    var addresses: [Address]?
    var attributes: [String: String]?
    var matrix: [[Double?]]?
}

let names = ["id", "flag", "small", "unsigned", "big", "double", "float", "text", "date", "data", "url",
             "uuid", "decimal", "mood", "numbers", "address", "addresses", "attributes", "matrix"]
let fields = FieldTable(names: Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.offset + 1, $0.element) }))
let selection = FieldSelection(names: ["text", "numbers", "address", "double"], fields: fields)
let predicate = try! PredicateFormat.parse("text BEGINSWITH[cd] 'a' OR double > 1.5 OR ANY numbers == 3 OR address.street == 'x'",
                                           arguments: [], entity: "Fuzz", fields: nil).predicate

func fuzzRecord(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? RecordDecoder().decode(Everything.self, from: bytes, fields: fields, entity: "Fuzz", key: "1")
    _ = try? StoredRecord(key: Int64(1).orderedKey, bytes: bytes, fields: fields, entity: "Fuzz")
    var offsets: [Int] = []
    if let values = try? selection.values(of: bytes, reusing: &offsets) {
        _ = predicate.evaluate(on: values)
    }
    // The same bytes as a nested value of a record that is otherwise fine: {1: 7, 8: <bytes>}.
    let wrapped: [UInt8] = [0xA2, 0x01, 0x07, 0x08] + bytes
    _ = try? RecordDecoder().decode(Everything.self, from: wrapped, fields: fields, entity: "Fuzz", key: "1")
    _ = try? StoredRecord(key: Int64(1).orderedKey, bytes: wrapped, fields: fields, entity: "Fuzz")
    return 0
}

import Foundation
import Strata

// snippet: records-fields
struct Product: Record {
    enum Status: String, Codable { case draft, live, retired }   // stored as its raw value
    struct Dimensions: Codable, Equatable { var width: Double; var height: Double }   // embedded

    var sku: String                      // the primary key: any integer type, String, UUID, Date, Bool, Double
    var name: String
    var price: Decimal
    var status: Status
    var size: Dimensions?                // optional: nil is not stored; a record without it reads as nil
    var photos: [URL]
    var attributes: [String: String]     // dictionaries with String keys
    var addedAt: Date
    static let primaryKey = \Product.sku
    static let entityName = "Product"    // the stored name; rename the Swift type freely
}
// end snippet: records-fields

// snippet: records-field-codable
struct Reading: Record, FieldCodable {
    var id: Int64
    var sensor: String
    var value: Double
    var note: String?
    static let primaryKey = \Reading.id

    func encodeFields(to fields: inout FieldWriter) throws {
        fields.encode(id, forKey: CodingKeys.id)            // the keys and order encode(to:) uses
        fields.encode(sensor, forKey: CodingKeys.sensor)
        fields.encode(value, forKey: CodingKeys.value)
        fields.encodeIfPresent(note, forKey: CodingKeys.note)
    }

    init(fields: inout FieldReader) throws {
        let id = try fields.decode(Int64.self, forKey: CodingKeys.id)
        let sensor = try fields.decode(String.self, forKey: CodingKeys.sensor)
        let value = try fields.decode(Double.self, forKey: CodingKeys.value)
        let note = try fields.decodeIfPresent(String.self, forKey: CodingKeys.note)
        self.init(id: id, sensor: sensor, value: value, note: note)
    }

    init(id: Int64, sensor: String, value: Double, note: String? = nil) {
        (self.id, self.sensor, self.value, self.note) = (id, sensor, value, note)
    }
}
// end snippet: records-field-codable

func definingRecords(path: String) throws {
    let store = try Store(path: path)
    let lamp = Product(sku: "L-1", name: "Lamp", price: Decimal(string: "19.90")!, status: .live,
                       size: .init(width: 20, height: 45), photos: [URL(string: "https://example.com/l1.jpg")!],
                       attributes: ["color": "red"], addedAt: .now)
    try store.write { tx in
        try tx.insert(lamp)
        try tx.insert((1...3).map { Reading(id: $0, sensor: "t1", value: Double($0) / 2) })
    }
    try store.read { tx in
        let read = try tx.get(Product.self, key: "L-1")
        check(read?.size == lamp.size && read?.status == .live && read?.price == lamp.price)
        check(try tx.all(Reading.self).map(\.value) == [0.5, 1, 1.5])
    }
}

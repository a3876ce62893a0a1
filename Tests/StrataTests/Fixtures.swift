import Foundation
import Strata
import TestSupport

/// The user of the seeds' examples (Kern, SugarRecord).
struct User: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var luckyNumber: Int?
    var createdDate: Date
    static let primaryKey = \User.id

    static func sample(_ id: Int64, _ first: String = "Jimmy", _ last: String = "James", lucky: Int? = 3) -> User {
        User(id: id, firstName: first, lastName: last, luckyNumber: lucky,
             createdDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(id % 1_000_000_000)))   // a storable date for any id
    }
}

/// A record keyed by a string.
struct Tag: Record, Equatable {
    var name: String
    var uses: Int
    static let primaryKey = \Tag.name
}

/// A record keyed by a UUID, with every supported field type.
struct Everything: Record, Equatable {
    enum Mood: String, Codable, Sendable { case calm, busy }
    struct Address: Codable, Sendable, Equatable { var street: String; var zip: Int? }
    var id: UUID
    var flag: Bool
    var int8: Int8, int16: Int16, int32: Int32, int64: Int64, int: Int
    var uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint: UInt
    var double: Double, float: Float
    var text: String
    var date: Date
    var data: Data
    var url: URL
    var decimal: Decimal
    var mood: Mood
    var optional: String?
    var numbers: [Int]
    var address: Address
    var addresses: [Address]
    var attributes: [String: String]
    static let primaryKey = \Everything.id

    static func sample() -> Everything {
        Everything(
            id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, flag: true,
            int8: -8, int16: -1600, int32: -320_000, int64: .min, int: 42,
            uint8: 255, uint16: 65_535, uint32: 4_000_000_000, uint64: .max, uint: 7,
            double: -12.5, float: 3.25, text: "Fünke ÉLAN ✓", date: Date(timeIntervalSince1970: 1_700_000_000.25),
            data: Data([0, 1, 2, 255]), url: URL(string: "https://example.com/a?b=c")!, decimal: Decimal(string: "12.345")!,
            mood: .busy, optional: nil, numbers: [1, -2, 3], address: Address(street: "Main", zip: nil),
            addresses: [Address(street: "A", zip: 1)], attributes: ["k": "v", "ü": "ö"])
    }
}

/// Opens a store in a fresh temporary directory.
func makeStore(_ configure: (inout Store.Configuration) -> Void = { _ in }) throws -> (Store, TemporaryDirectory) {
    let dir = try TemporaryDirectory("strata")
    var configuration = Store.Configuration()
    configure(&configuration)
    return (try Store(path: dir.path("store"), configuration: configuration), dir)
}

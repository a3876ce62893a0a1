import Foundation
import TestSupport
@testable import Strata

struct CodecAddress: Codable, Equatable, Sendable {
    var street: String
    var city: String
    var zip: String?
}

enum CodecStatus: String, Codable, Sendable { case active, suspended }
enum CodecPriority: Int, Codable, Sendable { case low = 1, high = 10 }

enum CodecShape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
    case point
    case labelled(String, Int)
}

struct CodecUser: Codable, Equatable, Sendable {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var luckyNumber: Int?
    var city: String
    var score: Double
    var active: Bool
    var tags: [String]
    var createdAt: Date
    var updatedAt: Date

    static func sample(_ i: Int = 1) -> CodecUser {
        CodecUser(id: Int64(i), firstName: "Ada", lastName: "Lovelace", email: "ada\(i)@example.com",
             luckyNumber: i % 2 == 0 ? nil : i, city: "London", score: 97.5, active: true,
             tags: ["math", "engines"], createdAt: Date(timeIntervalSince1970: 1_700_000_000),
             updatedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
    }
}

/// Every type the codec treats specially, in one record.
struct CodecEverything: Codable, Equatable, Sendable {
    var bool = true
    var int = Int.min
    var int8 = Int8.min
    var int16 = Int16.max
    var int32 = Int32.min
    var int64 = Int64.max
    var uint = UInt.max
    var uint8 = UInt8.max
    var uint16 = UInt16.max
    var uint32 = UInt32.max
    var uint64 = UInt64.max
    var double = -1.25e300
    var float: Float = 3.5
    var string = "héllo wörld 🌍"
    var empty = ""
    var data = Data([0, 1, 2, 255])
    var emptyData = Data()
    var date = Date(timeIntervalSince1970: -12_345.5)
    var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var url = URL(string: "https://example.com/a?b=c#d")!
    var decimal = Decimal(string: "12345678901234567890.123456789")!
    var optionalSome: Int? = 7
    var optionalNone: String? = nil
    var address = CodecAddress(street: "1 Main St", city: "Springfield", zip: nil)
    var addresses = [CodecAddress(street: "a", city: "b", zip: "c")]
    var status = CodecStatus.suspended
    var priority = CodecPriority.high
    var shapes: [CodecShape] = [.circle(radius: 2), .rectangle(width: 1, height: 2), .point, .labelled("x", -3)]
    var dictionary = ["b": 2, "a": 1, "c": 3]
    var intDictionary = [10: "ten", -1: "minus one"]
    var nestedArrays = [[1, 2], [], [3]]
    var arrayOfOptionals: [Int?] = [1, nil, 3]
    var set: Set<String> = ["x", "y", "z", "w"]
    var strings = ["", "a", "\u{0}"]
    var doubles = [0.0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude]
}

enum CodecHarness {
    static func encode<T: Encodable>(_ value: T, fields: inout FieldTable, entity: String = "Test") throws -> [UInt8] {
        try RecordEncoder().encode(value, fields: &fields, entity: entity)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], fields: FieldTable, entity: String = "Test", key: String = "1") throws -> T {
        try RecordDecoder().decode(type, from: bytes, fields: fields, entity: entity, key: key)
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        var fields = FieldTable()
        let bytes = try encode(value, fields: &fields)
        return try decode(T.self, bytes, fields: fields)
    }
}

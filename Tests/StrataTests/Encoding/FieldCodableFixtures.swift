import Foundation
@testable import Strata

/// `CodecUser`'s fields, read and written through `FieldCodable`.
struct FieldUser: Codable, Equatable, Sendable, FieldCodable {
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

    static func sample(_ i: Int = 1) -> FieldUser {
        let user = CodecUser.sample(i)
        return FieldUser(id: user.id, firstName: user.firstName, lastName: user.lastName, email: user.email,
                         luckyNumber: user.luckyNumber, city: user.city, score: user.score, active: user.active,
                         tags: user.tags, createdAt: user.createdAt, updatedAt: user.updatedAt)
    }

    func encodeFields(to fields: inout FieldWriter) throws {
        fields.encode(id, forKey: CodingKeys.id)
        fields.encode(firstName, forKey: CodingKeys.firstName)
        fields.encode(lastName, forKey: CodingKeys.lastName)
        fields.encode(email, forKey: CodingKeys.email)
        fields.encodeIfPresent(luckyNumber, forKey: CodingKeys.luckyNumber)
        fields.encode(city, forKey: CodingKeys.city)
        fields.encode(score, forKey: CodingKeys.score)
        fields.encode(active, forKey: CodingKeys.active)
        fields.encode(tags, forKey: CodingKeys.tags)
        fields.encode(createdAt, forKey: CodingKeys.createdAt)
        fields.encode(updatedAt, forKey: CodingKeys.updatedAt)
    }

    init(fields: inout FieldReader) throws {
        // Not in declaration order on purpose: reading is order-free.
        updatedAt = try fields.decode(Date.self, forKey: CodingKeys.updatedAt)
        id = try fields.decode(Int64.self, forKey: CodingKeys.id)
        firstName = try fields.decode(String.self, forKey: CodingKeys.firstName)
        lastName = try fields.decode(String.self, forKey: CodingKeys.lastName)
        email = try fields.decode(String.self, forKey: CodingKeys.email)
        luckyNumber = try fields.decodeIfPresent(Int.self, forKey: CodingKeys.luckyNumber)
        city = try fields.decode(String.self, forKey: CodingKeys.city)
        score = try fields.decode(Double.self, forKey: CodingKeys.score)
        active = try fields.decode(Bool.self, forKey: CodingKeys.active)
        tags = try fields.decode([String].self, forKey: CodingKeys.tags)
        createdAt = try fields.decode(Date.self, forKey: CodingKeys.createdAt)
    }

    init(id: Int64, firstName: String, lastName: String, email: String, luckyNumber: Int?, city: String,
         score: Double, active: Bool, tags: [String], createdAt: Date, updatedAt: Date) {
        (self.id, self.firstName, self.lastName, self.email, self.luckyNumber, self.city) = (id, firstName, lastName, email, luckyNumber, city)
        (self.score, self.active, self.tags, self.createdAt, self.updatedAt) = (score, active, tags, createdAt, updatedAt)
    }
}

/// Every kind of value `FieldWriter` and `FieldReader` handle other than through a dedicated method:
/// other widths, floats, Foundation types, optionals of every kind, nested `Codable` values.
struct FieldEverything: Codable, Equatable, Sendable, FieldCodable {
    var int8 = Int8.min
    var uint64 = UInt64.max
    var float: Float = 3.5
    var data = Data([0, 1, 2, 255])
    var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var url = URL(string: "https://example.com/a?b=c#d")!
    var decimal = Decimal(string: "12345678901234567890.123456789")!
    var text: String? = "héllo wörld 🌍"
    var missingText: String? = nil
    var int64: Int64? = -5
    var double: Double? = -0.0
    var bool: Bool? = false
    var date: Date? = Date(timeIntervalSince1970: -12_345.5)
    var address = CodecAddress(street: "1 Main St", city: "Springfield", zip: nil)
    var missingAddress: CodecAddress? = nil
    var status = CodecStatus.suspended
    var shapes: [CodecShape] = [.circle(radius: 2), .rectangle(width: 1, height: 2), .point, .labelled("x", -3)]
    var dictionary = ["b": 2, "a": 1, "c": 3]
    var set: Set<String> = ["x", "y", "z", "w"]
    var arrayOfOptionals: [Int?] = [1, nil, 3]

    init() {}

    func encodeFields(to fields: inout FieldWriter) throws {
        fields.encode(int8, forKey: CodingKeys.int8)
        fields.encode(uint64, forKey: CodingKeys.uint64)
        fields.encode(float, forKey: CodingKeys.float)
        try fields.encode(data, forKey: CodingKeys.data)
        fields.encode(uuid, forKey: CodingKeys.uuid)
        try fields.encode(url, forKey: CodingKeys.url)
        try fields.encode(decimal, forKey: CodingKeys.decimal)
        fields.encodeIfPresent(text, forKey: CodingKeys.text)
        fields.encodeIfPresent(missingText, forKey: CodingKeys.missingText)
        fields.encodeIfPresent(int64, forKey: CodingKeys.int64)
        fields.encodeIfPresent(double, forKey: CodingKeys.double)
        fields.encodeIfPresent(bool, forKey: CodingKeys.bool)
        fields.encodeIfPresent(date, forKey: CodingKeys.date)
        try fields.encode(address, forKey: CodingKeys.address)
        try fields.encodeIfPresent(missingAddress, forKey: CodingKeys.missingAddress)
        try fields.encode(status, forKey: CodingKeys.status)
        try fields.encode(shapes, forKey: CodingKeys.shapes)
        try fields.encode(dictionary, forKey: CodingKeys.dictionary)
        try fields.encode(set, forKey: CodingKeys.set)
        try fields.encode(arrayOfOptionals, forKey: CodingKeys.arrayOfOptionals)
    }

    init(fields: inout FieldReader) throws {
        int8 = try fields.decode(Int8.self, forKey: CodingKeys.int8)
        uint64 = try fields.decode(UInt64.self, forKey: CodingKeys.uint64)
        float = try fields.decode(Float.self, forKey: CodingKeys.float)
        data = try fields.decode(Data.self, forKey: CodingKeys.data)
        uuid = try fields.decode(UUID.self, forKey: CodingKeys.uuid)
        url = try fields.decode(URL.self, forKey: CodingKeys.url)
        decimal = try fields.decode(Decimal.self, forKey: CodingKeys.decimal)
        text = try fields.decodeIfPresent(String.self, forKey: CodingKeys.text)
        missingText = try fields.decodeIfPresent(String.self, forKey: CodingKeys.missingText)
        int64 = try fields.decodeIfPresent(Int64.self, forKey: CodingKeys.int64)
        double = try fields.decodeIfPresent(Double.self, forKey: CodingKeys.double)
        bool = try fields.decodeIfPresent(Bool.self, forKey: CodingKeys.bool)
        date = try fields.decodeIfPresent(Date.self, forKey: CodingKeys.date)
        address = try fields.decode(CodecAddress.self, forKey: CodingKeys.address)
        missingAddress = try fields.decodeIfPresent(CodecAddress.self, forKey: CodingKeys.missingAddress)
        status = try fields.decode(CodecStatus.self, forKey: CodingKeys.status)
        shapes = try fields.decode([CodecShape].self, forKey: CodingKeys.shapes)
        dictionary = try fields.decode([String: Int].self, forKey: CodingKeys.dictionary)
        set = try fields.decode(Set<String>.self, forKey: CodingKeys.set)
        arrayOfOptionals = try fields.decode([Int?].self, forKey: CodingKeys.arrayOfOptionals)
    }
}

extension CodecHarness {
    /// `value` encoded through `Codable` even when its type is `FieldCodable`.
    static func encodeWithCodable<T: Encodable>(_ value: T, fields: inout FieldTable) throws -> [UInt8] {
        var encoder = RecordEncoder()
        encoder.usesFieldCoding = false
        return try encoder.encode(value, fields: &fields, entity: "Test")
    }

    /// `bytes` decoded through `Codable` even when `type` is `FieldCodable`.
    static func decodeWithCodable<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], fields: FieldTable) throws -> T {
        var decoder = RecordDecoder()
        decoder.usesFieldCoding = false
        return try decoder.decode(type, from: bytes, fields: fields, entity: "Test", key: "1")
    }
}

import Dataset
import Foundation
import Strata

/// The benchmark's user as a Strata record: the dataset's fields, keyed by `id`.
public struct BenchUser: Record, Equatable {
    public var id: Int64
    public var firstName: String
    public var lastName: String
    public var email: String
    public var luckyNumber: Int?
    public var city: String
    public var score: Double
    public var active: Bool
    public var tags: [String]
    public var createdAt: Date
    public var updatedAt: Date

    public static let primaryKey = \BenchUser.id

    public init(_ user: GeneratedUser) {
        id = user.id
        firstName = user.firstName
        lastName = user.lastName
        email = user.email
        luckyNumber = user.luckyNumber
        city = user.city
        score = user.score
        active = user.active
        tags = user.tags
        createdAt = user.createdAt
        updatedAt = user.updatedAt
    }
}

/// Fields read and written directly (``FieldCodable``); the stored bytes are those of the synthesized
/// `Codable` conformance, which the tests compare.
extension BenchUser: FieldCodable {
    public func encodeFields(to fields: inout FieldWriter) throws {
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

    public init(fields: inout FieldReader) throws {
        // Read into locals, then initialize `self` at once: assigned one `try` at a time, the
        // compiler builds the record aside and copies it out (retaining and releasing every field).
        let id = try fields.decode(Int64.self, forKey: CodingKeys.id)
        let firstName = try fields.decode(String.self, forKey: CodingKeys.firstName)
        let lastName = try fields.decode(String.self, forKey: CodingKeys.lastName)
        let email = try fields.decode(String.self, forKey: CodingKeys.email)
        let luckyNumber = try fields.decodeIfPresent(Int.self, forKey: CodingKeys.luckyNumber)
        let city = try fields.decode(String.self, forKey: CodingKeys.city)
        let score = try fields.decode(Double.self, forKey: CodingKeys.score)
        let active = try fields.decode(Bool.self, forKey: CodingKeys.active)
        let tags = try fields.decode([String].self, forKey: CodingKeys.tags)
        let createdAt = try fields.decode(Date.self, forKey: CodingKeys.createdAt)
        let updatedAt = try fields.decode(Date.self, forKey: CodingKeys.updatedAt)
        self.init(id: id, firstName: firstName, lastName: lastName, email: email, luckyNumber: luckyNumber, city: city,
                  score: score, active: active, tags: tags, createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension BenchUser {
    /// Every field (the memberwise initializer, which the `GeneratedUser` one suppresses).
    init(id: Int64, firstName: String, lastName: String, email: String, luckyNumber: Int?, city: String,
         score: Double, active: Bool, tags: [String], createdAt: Date, updatedAt: Date) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.luckyNumber = luckyNumber
        self.city = city
        self.score = score
        self.active = active
        self.tags = tags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

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
        updatedAt = try fields.decode(Date.self, forKey: CodingKeys.updatedAt)
    }
}

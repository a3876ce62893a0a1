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

/// A benchmark user whose fields are read and written by hand (``FieldCodable``): the dataset's
/// eleven fields, stored as the synthesized `Codable` conformance stores them (the same keys in
/// declaration order, `luckyNumber` omitted when nil), which the tests compare. `BenchUser` and
/// `query-side-by-side`'s `IndexedBenchUser` share this one implementation.
public protocol HandCodedUser: FieldCodable {
    init(id: Int64, firstName: String, lastName: String, email: String, luckyNumber: Int?, city: String,
         score: Double, active: Bool, tags: [String], createdAt: Date, updatedAt: Date)
    var id: Int64 { get }
    var firstName: String { get }
    var lastName: String { get }
    var email: String { get }
    var luckyNumber: Int? { get }
    var city: String { get }
    var score: Double { get }
    var active: Bool { get }
    var tags: [String] { get }
    var createdAt: Date { get }
    var updatedAt: Date { get }
}

/// The stored keys of ``HandCodedUser``'s fields: the property names, as synthesized `CodingKeys` name them.
/// Its names are inlinable, as a type's own `CodingKeys` are to the `init(fields:)` beside it: each
/// read's name is then a constant, not a call into this module per field.
@frozen public enum HandCodedUserKey: String, CodingKey {
    case id, firstName, lastName, email, luckyNumber, city, score, active, tags, createdAt, updatedAt

    @inlinable public var stringValue: String {
        switch self {
        case .id: "id"
        case .firstName: "firstName"
        case .lastName: "lastName"
        case .email: "email"
        case .luckyNumber: "luckyNumber"
        case .city: "city"
        case .score: "score"
        case .active: "active"
        case .tags: "tags"
        case .createdAt: "createdAt"
        case .updatedAt: "updatedAt"
        }
    }
}

extension HandCodedUser {
    @inlinable
    public func encodeFields(to fields: inout FieldWriter) throws {
        fields.encode(id, forKey: HandCodedUserKey.id)
        fields.encode(firstName, forKey: HandCodedUserKey.firstName)
        fields.encode(lastName, forKey: HandCodedUserKey.lastName)
        fields.encode(email, forKey: HandCodedUserKey.email)
        fields.encodeIfPresent(luckyNumber, forKey: HandCodedUserKey.luckyNumber)
        fields.encode(city, forKey: HandCodedUserKey.city)
        fields.encode(score, forKey: HandCodedUserKey.score)
        fields.encode(active, forKey: HandCodedUserKey.active)
        fields.encode(tags, forKey: HandCodedUserKey.tags)
        fields.encode(createdAt, forKey: HandCodedUserKey.createdAt)
        fields.encode(updatedAt, forKey: HandCodedUserKey.updatedAt)
    }

    @inlinable
    public init(fields: inout FieldReader) throws {
        // Read into locals, then initialize `self` at once: assigned one `try` at a time, the
        // compiler builds the record aside and copies it out (retaining and releasing every field).
        let id = try fields.decode(Int64.self, forKey: HandCodedUserKey.id)
        let firstName = try fields.decode(String.self, forKey: HandCodedUserKey.firstName)
        let lastName = try fields.decode(String.self, forKey: HandCodedUserKey.lastName)
        let email = try fields.decode(String.self, forKey: HandCodedUserKey.email)
        let luckyNumber = try fields.decodeIfPresent(Int.self, forKey: HandCodedUserKey.luckyNumber)
        let city = try fields.decode(String.self, forKey: HandCodedUserKey.city)
        let score = try fields.decode(Double.self, forKey: HandCodedUserKey.score)
        let active = try fields.decode(Bool.self, forKey: HandCodedUserKey.active)
        let tags = try fields.decode([String].self, forKey: HandCodedUserKey.tags)
        let createdAt = try fields.decode(Date.self, forKey: HandCodedUserKey.createdAt)
        let updatedAt = try fields.decode(Date.self, forKey: HandCodedUserKey.updatedAt)
        self.init(id: id, firstName: firstName, lastName: lastName, email: email, luckyNumber: luckyNumber, city: city,
                  score: score, active: active, tags: tags, createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension BenchUser: HandCodedUser {}

extension BenchUser {
    /// Every field (the memberwise initializer, which the `GeneratedUser` one suppresses).
    public init(id: Int64, firstName: String, lastName: String, email: String, luckyNumber: Int?, city: String,
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

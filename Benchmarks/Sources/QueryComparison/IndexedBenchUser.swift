import Dataset
import EngineComparison
import Foundation
import Strata

/// What `query-side-by-side`'s Strata engines need of their record type: the users converted,
/// the six indexes, and the key paths of the fields the query shapes use (made where the type's
/// stored properties are known, so that Strata names them).
public protocol IndexedUser: Strata.Record, Equatable where PrimaryKey == Int64 {
    init(_ user: GeneratedUser)
    var id: Int64 { get }
    static var lastNamePath: KeyPath<Self, String> & Sendable { get }
    static var firstNamePath: KeyPath<Self, String> & Sendable { get }
    static var luckyNumberPath: KeyPath<Self, Int?> & Sendable { get }
    static var cityPath: KeyPath<Self, String> & Sendable { get }
    static var activePath: KeyPath<Self, Bool> & Sendable { get }
    static var createdAtPath: KeyPath<Self, Date> & Sendable { get }
    /// The ids of `users`, in order: `users.map(\.id)` compiled for the concrete type, as an app's
    /// code and the SQL engines' is (a map in the engine's generic code would copy and destroy each
    /// record through its value witnesses, work no concrete caller does).
    static func ids(of users: [Self]) -> [Int64]
}

extension IndexedUser {
    /// Single-field on lastName, luckyNumber, createdAt, and compound (lastName, luckyNumber),
    /// (lastName, createdAt), (city, active): the indexes a tuned user gives the query shapes.
    static var queryIndexes: [IndexDefinition<Self>] {
        [.index(lastNamePath), .index(luckyNumberPath), .index(createdAtPath),
         .index(lastNamePath, luckyNumberPath), .index(lastNamePath, createdAtPath), .index(cityPath, activePath)]
    }
}

/// `BenchUser` with the indexes a tuned user gives the query shapes (``IndexedUser``), reading and
/// writing its fields itself (`FieldCodable`, through `HandCodedUser`), as GRDB's records decode rows by hand
/// (`init(row:)`) and SQLite-C's by column. The SQL engines create the same six indexes
/// (``QueryIndexes``).
public struct IndexedBenchUser: IndexedUser {
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

    public static let primaryKey = \IndexedBenchUser.id
    public static let indexes = queryIndexes
    public static var lastNamePath: KeyPath<Self, String> & Sendable { \.lastName }
    public static var firstNamePath: KeyPath<Self, String> & Sendable { \.firstName }
    public static var luckyNumberPath: KeyPath<Self, Int?> & Sendable { \.luckyNumber }
    public static var cityPath: KeyPath<Self, String> & Sendable { \.city }
    public static var activePath: KeyPath<Self, Bool> & Sendable { \.active }
    public static var createdAtPath: KeyPath<Self, Date> & Sendable { \.createdAt }
    public static func ids(of users: [Self]) -> [Int64] { users.map(\.id) }

    public init(_ user: GeneratedUser) {
        self.init(id: user.id, firstName: user.firstName, lastName: user.lastName, email: user.email, luckyNumber: user.luckyNumber,
                  city: user.city, score: user.score, active: user.active, tags: user.tags, createdAt: user.createdAt, updatedAt: user.updatedAt)
    }

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

/// Fields read and written by hand, as `BenchUser`'s are.
extension IndexedBenchUser: HandCodedUser {}

/// The same record with its synthesized `Codable` alone: the column "Strata Codable", what the
/// query shapes cost before a type adopts `FieldCodable`.
public struct IndexedCodableUser: IndexedUser {
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

    public static let primaryKey = \IndexedCodableUser.id
    public static let indexes = queryIndexes
    public static var lastNamePath: KeyPath<Self, String> & Sendable { \.lastName }
    public static var firstNamePath: KeyPath<Self, String> & Sendable { \.firstName }
    public static var luckyNumberPath: KeyPath<Self, Int?> & Sendable { \.luckyNumber }
    public static var cityPath: KeyPath<Self, String> & Sendable { \.city }
    public static var activePath: KeyPath<Self, Bool> & Sendable { \.active }
    public static var createdAtPath: KeyPath<Self, Date> & Sendable { \.createdAt }
    public static func ids(of users: [Self]) -> [Int64] { users.map(\.id) }

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

/// The indexes of the SQL engines: the columns of each of `IndexedBenchUser.indexes`, in order.
public enum QueryIndexes {
    /// Each index's columns, as Strata names its indexes (`lastName,luckyNumber`).
    public static let columns: [[String]] = IndexedBenchUser.indexes.map { $0.name.split(separator: ",").map(String.init) }

    /// `CREATE INDEX user_lastName_luckyNumber ON user(lastName, luckyNumber)`, one per index.
    public static let createSQL: [String] = columns.map { columns in
        "CREATE INDEX user_\(columns.joined(separator: "_")) ON user(\(columns.joined(separator: ", ")))"
    }

    /// "(lastName), (luckyNumber), …, (city, active)": the settings lines' list, the same for every engine.
    public static let description = columns.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")

    /// Stops when a Strata index name is not plain column names (a collation marker, say), which
    /// the SQL engines would not copy faithfully.
    static func check() throws {
        let known = Set(UserTable.columns)
        for name in IndexedBenchUser.indexes.map(\.name) where !name.split(separator: ",").allSatisfy({ known.contains(String($0)) }) {
            throw ComparisonError("the Strata index '\(name)' has no SQL counterpart in QueryIndexes")
        }
    }
}

import Dataset
import EngineComparison
import Foundation
import Strata

/// `BenchUser` with the indexes a tuned user gives the query shapes: single-field on lastName,
/// luckyNumber, createdAt, and compound (lastName, luckyNumber), (lastName, createdAt), (city, active).
/// The SQL engines create the same six (``QueryIndexes``).
public struct IndexedBenchUser: Strata.Record, Equatable {
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
    public static let indexes: [IndexDefinition<IndexedBenchUser>] = [
        .index(\.lastName), .index(\.luckyNumber), .index(\.createdAt),
        .index(\.lastName, \.luckyNumber), .index(\.lastName, \.createdAt), .index(\.city, \.active),
    ]

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

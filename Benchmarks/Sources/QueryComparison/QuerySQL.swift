import EngineComparison
import Foundation

/// One SQL parameter; each SQL engine binds it in its own storage (a date: GRDB's text, SQLite-C's REAL).
enum SQLValue {
    case text(String)
    case integer(Int64)
    case date(Date)
}

/// The SQL of each query shape, the same text for GRDB and SQLite-C, and its parameters.
///
/// Every query that returns rows ends in `ORDER BY …, id`: Strata orders by the requested orderings
/// and then by primary key, so with `id` as the last key both sides have one total order, and a
/// LIMIT keeps the same rows. Every column is selected (`UserTable.columnList`) and decoded.
enum QuerySQL {
    static func sql(_ shape: QueryShape) -> String {
        let select = "SELECT \(UserTable.columnList) FROM user WHERE"
        return switch shape {
        case .equalityLimit: "\(select) lastName = ? ORDER BY id LIMIT 100"
        case .rangeSortedLimit: "\(select) createdAt >= ? AND createdAt < ? ORDER BY createdAt, id LIMIT 50"
        case .equalitySortedDescLimit: "\(select) lastName = ? ORDER BY luckyNumber DESC, id LIMIT 10"
        case .prefixSortedLimit: "\(select) lastName GLOB ? ORDER BY lastName, id LIMIT 100"
        case .rangeCount: "SELECT COUNT(*) FROM user WHERE createdAt >= ? AND createdAt < ?"
        case .inListLimit: "\(select) luckyNumber IN (?, ?, ?, ?, ?) ORDER BY id LIMIT 100"
        case .orLimit: "\(select) lastName = ? OR luckyNumber = ? ORDER BY id LIMIT 100"
        case .cityLimit: "\(select) city = ? ORDER BY id LIMIT 100"
        case .compoundEquality: "\(select) lastName = ? AND luckyNumber = ? ORDER BY id"
        case .compoundRangeSortedLimit: "\(select) lastName = ? AND createdAt >= ? AND createdAt < ? ORDER BY createdAt, id LIMIT 50"
        case .inListSortedLimit: "\(select) lastName IN (?, ?, ?, ?, ?) ORDER BY luckyNumber, id LIMIT 10"
        case .compoundRangeCount: "SELECT COUNT(*) FROM user WHERE lastName = ? AND luckyNumber BETWEEN ? AND ?"
        case .compoundBoolLimit: "\(select) city = ? AND active = 1 ORDER BY id LIMIT 100"
        case .unindexedLimit: "\(select) firstName = ? ORDER BY id LIMIT 100"
        }
    }

    /// The SQL with the column list shortened to `…`, for the tables.
    static func display(_ shape: QueryShape) -> String {
        sql(shape).replacingOccurrences(of: UserTable.columnList, with: "…")
    }

    static func arguments(_ shape: QueryShape, _ p: QueryParameters) -> [SQLValue] {
        switch shape {
        case .equalityLimit, .equalitySortedDescLimit: [.text(p.lastName)]
        case .rangeSortedLimit, .rangeCount: [.date(p.from), .date(p.to)]
        case .prefixSortedLimit: [.text(p.prefix + "*")]    // GLOB: case-sensitive, uses the BINARY index
        case .inListLimit: p.luckyNumbers.map { .integer(Int64($0)) }
        case .orLimit: [.text(p.otherLastName), .integer(Int64(p.luckyNumber))]
        case .cityLimit, .compoundBoolLimit: [.text(p.city)]
        case .compoundEquality: [.text(p.lastName), .integer(Int64(p.luckyNumber))]
        case .compoundRangeSortedLimit: [.text(p.lastName), .date(p.from), .date(p.to)]
        case .inListSortedLimit: p.lastNames.map { .text($0) }
        case .compoundRangeCount: [.text(p.lastName), .integer(Int64(p.luckyLow)), .integer(Int64(p.luckyHigh))]
        case .unindexedLimit: [.text(p.firstName)]
        }
    }
}

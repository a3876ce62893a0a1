import Foundation

/// The total order on ``QueryValue``s used for sorting and for every ordering comparison, so that an
/// in-memory sort, a filter and an index scan agree.
///
/// Kinds order as null < bool < numbers < strings < dates < UUIDs < data < lists. Numbers compare
/// exactly across `int`, `uint`, `wideInt` and `double` (NaN first among numbers); strings compare by Unicode code
/// point (binary UTF-8) after ``Collation`` folding when options are given; UUIDs and data compare
/// bytewise; lists lexicographically.
package enum QueryValueOrder {
    /// -1, 0 or 1 as `a` sorts before, with or after `b`.
    package static func compare(_ a: QueryValue, _ b: QueryValue, options: StringComparisonOptions) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.string(let x), .string(let y)): return compareStrings(x, y, options: options)
        case (.date(let x), .date(let y)):
            // As stored (see `Date.appendOrderedKey`): a query's date matches the record it was written with.
            return ordered(x.storedTimeIntervalSinceReferenceDate, y.storedTimeIntervalSinceReferenceDate)
        case (.uuid(let x), .uuid(let y)): return compareBytes(bytes(of: x), bytes(of: y))
        case (.data(let x), .data(let y)): return compareBytes(x, y)
        case (.list(let x), .list(let y)):
            for (left, right) in zip(x, y) {
                let result = compare(left, right, options: options)
                if result != 0 { return result }
            }
            return ordered(x.count, y.count)
        default: return compareNumbers(a, b)
        }
    }

    /// Whether the two values are of kinds that an ordering comparison (`<`, `BETWEEN`) can relate.
    package static func areComparable(_ a: QueryValue, _ b: QueryValue) -> Bool {
        rank(a) == rank(b) && rank(a) != 0
    }

    private static func rank(_ value: QueryValue) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .int, .uint, .wideInt, .double: 2
        case .string: 3
        case .date: 4
        case .uuid: 5
        case .data: 6
        case .list: 7
        }
    }

    package static func compareStrings(_ a: String, _ b: String, options: StringComparisonOptions) -> Int {
        let (x, y) = (Collation.fold(a, options), Collation.fold(b, options))
        return compareBytes(x.utf8, y.utf8)
    }

    private static func compareBytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
        var (left, right) = (a.makeIterator(), b.makeIterator())
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    private static func bytes(of uuid: UUID) -> [UInt8] {
        let u = uuid.uuid
        return [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
    }

    private static func ordered<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    // MARK: Numbers

    private static func compareNumbers(_ a: QueryValue, _ b: QueryValue) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return ordered(x, y)
        case (.double(let x), .double(let y)): return compareDoubles(x, y)
        case (.double(let x), _): return b.wideInteger.map { compare(x, toInteger: $0) } ?? 0
        case (_, .double(let y)): return a.wideInteger.map { -compare(y, toInteger: $0) } ?? 0
        default:
            guard let x = a.wideInteger, let y = b.wideInteger else { return 0 }
            return ordered(x, y)
        }
    }

    /// NaN sorts before every other number and equals itself, so the order stays total.
    private static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        switch (x.isNaN, y.isNaN) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: return ordered(x, y)
        }
    }

    /// Exact comparison of a double with an integer of any width, without rounding the integer to a double.
    private static func compare(_ x: Double, toInteger y: WideInteger) -> Int {
        if x.isNaN || x < -0x1p127 { return -1 }
        if x >= 0x1p128 { return 1 }
        let whole = x.rounded(.down)
        let wholeInteger = whole < 0 ? WideInteger(Int128(whole)) : WideInteger(UInt128(whole))
        let result = ordered(wholeInteger, y)
        if result != 0 { return result }
        return x > whole ? 1 : 0
    }
}

import Dataset
import Foundation

/// The query shapes in the table, in table order. Each shape's parameters are drawn from its own
/// stream (its position here), so shapes added at the end leave the others' queries unchanged.
public enum QueryShape: String, CaseIterable, Sendable {
    case equalityLimit = "lastName == ? LIMIT 100"
    case rangeSortedLimit = "createdAt in a 30-day range ORDER BY createdAt LIMIT 50"
    case equalitySortedDescLimit = "lastName == ? ORDER BY luckyNumber DESC LIMIT 10"
    case prefixSortedLimit = "lastName BEGINSWITH ? ORDER BY lastName LIMIT 100"
    case rangeCount = "count of a 30-day createdAt range"
    case inListLimit = "luckyNumber IN (5 values) LIMIT 100"
    case orLimit = "lastName == ? OR luckyNumber == ? LIMIT 100"
    /// Until the compound indexes came, city had no index and this shape was the scan.
    case cityLimit = "city == ? LIMIT 100"
    case compoundEquality = "lastName == ? AND luckyNumber == ?"
    case compoundRangeSortedLimit = "lastName == ? AND createdAt in a 30-day range ORDER BY createdAt LIMIT 50"
    case inListSortedLimit = "lastName IN (5 values) ORDER BY luckyNumber LIMIT 10"
    case compoundRangeCount = "count of lastName == ? AND luckyNumber BETWEEN ? AND ? (10 values)"
    case compoundBoolLimit = "city == ? AND active == true LIMIT 100"
    case unindexedLimit = "firstName == ? LIMIT 100 (unindexed: scan)"

    /// The query's results are a count, not records.
    var isCount: Bool { self == .rangeCount || self == .compoundRangeCount }

    /// The index a tuned user gives this shape (every engine has all of them, ``QueryIndexes``).
    public var index: String {
        switch self {
        case .equalityLimit, .prefixSortedLimit: "(lastName)"
        case .rangeSortedLimit, .rangeCount: "(createdAt)"
        case .equalitySortedDescLimit, .compoundEquality, .inListSortedLimit, .compoundRangeCount: "(lastName, luckyNumber)"
        case .inListLimit: "(luckyNumber)"
        case .orLimit: "(lastName) ∪ (luckyNumber)"
        case .cityLimit, .compoundBoolLimit: "(city, active)"
        case .compoundRangeSortedLimit: "(lastName, createdAt)"
        case .unindexedLimit: "none"
        }
    }
}

/// The values one query instance uses; each shape reads the ones it needs.
public struct QueryParameters: Sendable, CustomStringConvertible {
    public var lastName: String
    public var otherLastName: String
    public var prefix: String
    public var from: Date
    public var to: Date
    public var luckyNumbers: [Int]
    public var luckyNumber: Int
    public var city: String
    /// Five distinct last names.
    public var lastNames: [String]
    /// `luckyLow...luckyLow + 9`.
    public var luckyLow: Int
    public var firstName: String

    public var luckyHigh: Int { luckyLow + 9 }

    public var description: String {
        "lastName=\(lastName) otherLastName=\(otherLastName) prefix=\(prefix) from=\(from) to=\(to) "
            + "luckyNumbers=\(luckyNumbers) luckyNumber=\(luckyNumber) city=\(city) lastNames=\(lastNames) "
            + "lucky=\(luckyLow)...\(luckyHigh) firstName=\(firstName)"
    }
}

/// The values present in the dataset, to draw parameters that match rows.
public struct DatasetValues: Sendable {
    public let lastNames: [String]
    /// Every 1- and 2-character prefix of a last name (1-character ones match several names).
    public let prefixes: [String]
    public let cities: [String]
    public let firstNames: [String]
    public let createdMin: Int64
    public let createdMax: Int64

    public init(_ users: [GeneratedUser]) {
        let names = Set(users.map(\.lastName))
        lastNames = names.sorted()
        prefixes = Set(names.flatMap { [String($0.prefix(1)), String($0.prefix(2))] }).sorted()
        cities = Set(users.map(\.city)).sorted()
        firstNames = Set(users.map(\.firstName)).sorted()
        let seconds = users.map { Int64($0.createdAt.timeIntervalSince1970) }
        createdMin = seconds.min() ?? 0
        createdMax = seconds.max() ?? 0
    }

    /// `count` parameter sets for one shape, drawn from `SplitMix64(seed:index:)`: the same seed
    /// gives the same queries. Every draw is uniform over the values (cities too, so the rare ones
    /// make the scan long), date windows are 30 days starting on a whole second. The draws added
    /// with the compound shapes come after the others, which therefore kept their values.
    public func parameters(count: Int, seed: UInt64, shape: QueryShape) -> [QueryParameters] {
        let shapeIndex = UInt64(QueryShape.allCases.firstIndex(of: shape)!)
        let window: Int64 = 30 * 86_400
        return (0..<count).map { i in
            var rng = SplitMix64(seed: seed ^ 0x0E_4E_41_E5, index: shapeIndex << 32 | UInt64(i))
            let start = createdMin + Int64(rng.below(Int(max(1, createdMax - createdMin - window))))
            var lucky: [Int] = []
            while lucky.count < 5 {
                let n = rng.below(100)
                if !lucky.contains(n) { lucky.append(n) }
            }
            let lastName = lastNames[rng.below(lastNames.count)]
            let otherLastName = lastNames[rng.below(lastNames.count)]
            let prefix = prefixes[rng.below(prefixes.count)]
            let luckyNumber = rng.below(100)
            let city = cities[rng.below(cities.count)]
            var names: [String] = []
            while names.count < min(5, lastNames.count) {
                let name = lastNames[rng.below(lastNames.count)]
                if !names.contains(name) { names.append(name) }
            }
            return QueryParameters(
                lastName: lastName, otherLastName: otherLastName, prefix: prefix,
                from: Date(timeIntervalSince1970: Double(start)), to: Date(timeIntervalSince1970: Double(start + window)),
                luckyNumbers: lucky, luckyNumber: luckyNumber, city: city,
                lastNames: names, luckyLow: rng.below(91), firstName: firstNames[rng.below(firstNames.count)])
        }
    }
}

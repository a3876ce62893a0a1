import Dataset
import Foundation

/// The query shapes in the table, in table order.
public enum QueryShape: String, CaseIterable, Sendable {
    case equalityLimit = "lastName == ? LIMIT 100"
    case rangeSortedLimit = "createdAt in a 30-day range ORDER BY createdAt LIMIT 50"
    case equalitySortedDescLimit = "lastName == ? ORDER BY luckyNumber DESC LIMIT 10"
    case prefixSortedLimit = "lastName BEGINSWITH ? ORDER BY lastName LIMIT 100"
    case rangeCount = "count of a 30-day createdAt range"
    case inListLimit = "luckyNumber IN (5 values) LIMIT 100"
    case orLimit = "lastName == ? OR luckyNumber == ? LIMIT 100"
    case unindexedLimit = "city == ? LIMIT 100 (unindexed: scan)"

    /// The query's results are a count, not records.
    var isCount: Bool { self == .rangeCount }
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

    public var description: String {
        "lastName=\(lastName) otherLastName=\(otherLastName) prefix=\(prefix) from=\(from) to=\(to) "
            + "luckyNumbers=\(luckyNumbers) luckyNumber=\(luckyNumber) city=\(city)"
    }
}

/// The values present in the dataset, to draw parameters that match rows.
public struct DatasetValues: Sendable {
    public let lastNames: [String]
    /// Every 1- and 2-character prefix of a last name (1-character ones match several names).
    public let prefixes: [String]
    public let cities: [String]
    public let createdMin: Int64
    public let createdMax: Int64

    public init(_ users: [GeneratedUser]) {
        let names = Set(users.map(\.lastName))
        lastNames = names.sorted()
        prefixes = Set(names.flatMap { [String($0.prefix(1)), String($0.prefix(2))] }).sorted()
        cities = Set(users.map(\.city)).sorted()
        let seconds = users.map { Int64($0.createdAt.timeIntervalSince1970) }
        createdMin = seconds.min() ?? 0
        createdMax = seconds.max() ?? 0
    }

    /// `count` parameter sets for one shape, drawn from `SplitMix64(seed:index:)`: the same seed
    /// gives the same queries. Every draw is uniform over the values (cities too, so the rare ones
    /// make the scan long), date windows are 30 days starting on a whole second.
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
            return QueryParameters(
                lastName: lastNames[rng.below(lastNames.count)],
                otherLastName: lastNames[rng.below(lastNames.count)],
                prefix: prefixes[rng.below(prefixes.count)],
                from: Date(timeIntervalSince1970: Double(start)),
                to: Date(timeIntervalSince1970: Double(start + window)),
                luckyNumbers: lucky,
                luckyNumber: rng.below(100),
                city: cities[rng.below(cities.count)])
        }
    }
}

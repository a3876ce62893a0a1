@_spi(Format) import StrataFormat
import Foundation

/// Running state of one aggregate over the values of one field, fed value by value. Nil values
/// are skipped, as SQL skips NULL in `MIN`, `MAX`, `SUM` and `AVG`.
package struct AggregateAccumulator {
    package let function: AggregateFunction
    private(set) var extreme: QueryValue?
    private var sum = NumericSum()

    package init(_ function: AggregateFunction) { self.function = function }

    /// Adds one record's value of the field (nil when the record has none). Throws
    /// `.invalidQuery` when `sum` or `average` meet a value that is not a number.
    package mutating func add(_ value: QueryValue?, field: [String], entity: String) throws(StrataError) {
        guard let value, value != .null else { return }
        switch function {
        case .count: return
        case .min:
            if extreme.map({ QueryValueOrder.compare(value, $0, options: []) < 0 }) ?? true { extreme = value }
        case .max:
            if extreme.map({ QueryValueOrder.compare(value, $0, options: []) > 0 }) ?? true { extreme = value }
        case .sum, .average:
            guard sum.add(value) else {
                let name = field.joined(separator: ".")
                throw StrataError(.invalidQuery, "\(entity): \(function.rawValue)(\(name)) met the non-numeric value \(value.explained)",
                                  entity: entity, field: name)
            }
        }
    }

    /// The aggregate's value: nil when no non-nil value was added (and for `count`, kept elsewhere).
    package var result: QueryValue? {
        switch function {
        case .count: return nil
        case .min, .max: return extreme
        case .sum: return sum.count == 0 ? nil : sum.total
        case .average: return sum.average.map(QueryValue.double)
        }
    }
}

/// An exact integer sum while it fits in Int64, switching to double arithmetic when a double
/// (or an overflow, or an unsigned value above Int64.max) comes along.
package struct NumericSum {
    package private(set) var count = 0
    private var integer: Int64 = 0
    private var double: Double = 0
    private var isDouble = false

    /// Adds a number; false when `value` is not one.
    package mutating func add(_ value: QueryValue) -> Bool {
        switch value {
        case .int(let x):
            let (result, overflow) = integer.addingReportingOverflow(x)
            if overflow { double += Double(x); isDouble = true } else { integer = result }
        case .uint, .wideInt: double += value.wideInteger!.doubleValue; isDouble = true
        case .double(let x): double += x; isDouble = true
        default: return false
        }
        count += 1
        return true
    }

    package var total: QueryValue { isDouble ? .double(Double(integer) + double) : .int(integer) }

    package var average: Double? { count == 0 ? nil : (Double(integer) + double) / Double(count) }
}

/// A query value as a dictionary key that groups values equal in ``QueryValueOrder`` (so `5` and
/// `5.0`, `-0.0` and `0.0`, every NaN, fall in one group).
package struct GroupKey: Hashable {
    package let value: QueryValue

    package static func == (a: Self, b: Self) -> Bool { QueryValueOrder.compare(a.value, b.value, options: []) == 0 }

    package func hash(into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0)
        case .bool(let x): hasher.combine(x)
        case .int(let x): Self.combine(Double(x), into: &hasher)
        case .uint, .wideInt: Self.combine(value.wideInteger!.doubleValue, into: &hasher)
        case .double(let x): Self.combine(x, into: &hasher)
        case .string(let x): hasher.combine(x)
        case .date(let x): Self.combine(x.timeIntervalSinceReferenceDate, into: &hasher)
        case .uuid(let x): hasher.combine(x)
        case .data(let x): hasher.combine(x)
        case .list(let x): hasher.combine(x.count)
        }
    }

    private static func combine(_ number: Double, into hasher: inout Hasher) {
        hasher.combine(number.isNaN ? 1 : 2)
        if !number.isNaN { hasher.combine(number == 0 ? 0 : number.bitPattern) }
    }
}

extension QueryValue {
    /// This value as a Swift value of type `V`, through `V`'s index key encoding (numbers of one
    /// kind become the other when exact). Throws `.typeMismatch` naming `field` when it cannot be.
    package func converted<V: IndexableValue>(to type: V.Type, field: [String], entity: String) throws(StrataError) -> V {
        if case .double(let number) = self, let floating = V.self as? any BinaryFloatingPoint.Type {
            return Self.make(floating, number) as! V   // sums and averages of Float fields need not be exact Floats
        }
        let mismatch = StrataError(.typeMismatch, "\(entity): the value \(explained) of \(field.joined(separator: ".")) is not a \(V.self)",
                                   entity: entity, field: field.joined(separator: "."))
        guard let key = IndexKey.encode(self, kind: ValueKind(V.self), collation: .binary) else { throw mismatch }
        var position = 0
        do { return try V.readOrderedKey(from: key, at: &position) } catch { throw mismatch }
    }

    private static func make<F: BinaryFloatingPoint>(_ type: F.Type, _ value: Double) -> F { F(value) }

    /// Reads the one value at the start of an index key, as the record path would see it; nil
    /// when the key is cut short inside it.
    package static func leadingValue(ofIndexKey key: [UInt8]) -> QueryValue? {
        var position = 0
        guard key.first != nil, let value = try? OrderedKey.queryValue(from: key, at: &position) else { return nil }
        return value
    }

    /// True for a double or date whose number is NaN, which index keys order last but
    /// ``QueryValueOrder`` orders first.
    package var isNaN: Bool {
        switch self {
        case .double(let x): x.isNaN
        case .date(let x): x.timeIntervalSinceReferenceDate.isNaN
        default: false
        }
    }
}

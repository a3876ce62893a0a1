import ArgumentParser
import Strata
import StrataToolSupport

/// One term of `query --aggregate`: `count`, or `sum`, `avg` (`average`), `min` or `max` of a
/// field, printed under the column name it was written as (`avg(score)`).
struct AggregateTerm: Equatable {
    /// The library's aggregate.
    let aggregate: Aggregate<StoredRecord>
    /// The output column: the term as written, without spaces.
    let column: String

    /// The functions `--aggregate` knows, by the names it takes.
    static let functions: [String: AggregateFunction] = [
        "count": .count, "sum": .sum, "avg": .average, "average": .average, "min": .min, "max": .max,
    ]

    /// The terms of an `--aggregate` list (`count,avg(score),max(score)`), each checked for its
    /// syntax; a bad one is an error naming it and its column in the list
    /// (``AggregateSyntaxError``). Fields are checked by the library when the query runs.
    static func parse(_ list: String) throws(AggregateSyntaxError) -> [AggregateTerm] {
        var terms: [AggregateTerm] = []
        var start = list.startIndex
        var depth = 0
        func column(_ index: String.Index) -> Int { list.distance(from: list.startIndex, to: index) + 1 }
        for index in list.indices + [list.endIndex] {
            if index < list.endIndex {
                switch list[index] {
                case "(": depth += 1; continue
                case ")": depth -= 1; continue
                case ",": if depth > 0 { continue }
                default: continue
                }
            }
            terms.append(try term(list[start..<index], column: column(start), in: list))
            if index < list.endIndex { start = list.index(after: index) }
        }
        return terms
    }

    private static func term(_ text: Substring, column: Int, in list: String) throws(AggregateSyntaxError) -> AggregateTerm {
        let written = text.filter { !$0.isWhitespace }
        func failure(_ reason: String) -> AggregateSyntaxError { AggregateSyntaxError(list: list, term: written, column: column, reason: reason) }
        guard !written.isEmpty else { throw failure("an empty term") }
        let name: Substring
        let field: Substring?
        if let open = written.firstIndex(of: "(") {
            guard written.last == ")" else { throw failure("'(' without its closing ')'") }
            name = written[..<open]
            field = written[written.index(after: open)..<written.index(before: written.endIndex)]
        } else {
            guard !written.contains(")") else { throw failure("')' without its '('") }
            name = written[...]
            field = nil
        }
        guard let function = functions[name.lowercased()] else {
            throw failure("unknown function '\(name)'; use count, sum(FIELD), avg(FIELD), min(FIELD) or max(FIELD)")
        }
        if function == .count {
            guard field == nil || field == "" || field == "*" else { throw failure("count takes no field (it counts records)") }
            return AggregateTerm(aggregate: .count, column: written)
        }
        guard let field, !field.isEmpty else { throw failure("\(name) needs a field: \(name)(FIELD)") }
        guard !field.contains("("), !field.contains(")"), !field.contains(",") else { throw failure("'\(field)' is not a field name") }
        let aggregate: Aggregate<StoredRecord> = switch function {
        case .sum: .sum(String(field))
        case .average: .average(String(field))
        case .min: .min(String(field))
        case .max: .max(String(field))
        case .count: .count
        }
        return AggregateTerm(aggregate: aggregate, column: written)
    }
}

/// A bad `--aggregate` list: the list, the term and its column (counted from 1), and why.
struct AggregateSyntaxError: Error, Equatable, CustomStringConvertible {
    let list: String
    let term: String
    let column: Int
    let reason: String

    var description: String {
        "--aggregate '\(list)': \(term.isEmpty ? "the term" : "'\(term)'") at column \(column): \(reason)"
    }
}

/// What `query --group-by`, `--aggregate` and `--distinct` print: a column a value, computed by
/// the library's aggregates (`group(by:)`, `count()`, `sum`, `average`, `min`, `max`, `distinct`,
/// which answer from an index alone where they can).
enum AggregateQuery {
    /// The groups of `request` by `field`, one row per group: the group's value, then each term.
    static func grouped(_ request: QueryRequest<StoredRecord>, by field: String,
                        _ terms: [AggregateTerm]) throws -> (columns: [String], rows: [[JSONValue]]) {
        // `group(by:aggregating:)` takes its aggregates as variadic arguments: at most four a pass.
        let computed = terms.map(\.aggregate).filter { $0.function != .count }.reduce(into: [Aggregate<StoredRecord>]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        var chunks = stride(from: 0, to: computed.count, by: 4).map { Array(computed[$0..<min($0 + 4, computed.count)]) }
        if chunks.isEmpty { chunks = [[]] }
        let passes = try chunks.map { try groups(request, by: field, $0) }
        let first = passes[0]
        let rows = try first.indices.map { row in
            var values: [JSONValue] = [first[row].key.jsonValue]
            for term in terms {
                if term.aggregate.function == .count {
                    values.append(.int(Int64(first[row].count)))
                    continue
                }
                let pass = passes[chunks.firstIndex { $0.contains(term.aggregate) }!]
                guard pass.count == first.count, pass[row].key == first[row].key else {
                    throw CommandFailure(message: "the groups of \(field) changed between two passes over the records")
                }
                values.append(pass[row][term.aggregate]?.jsonValue ?? .null)
            }
            return values
        }
        return ([field] + terms.map(\.column), rows)
    }

    /// One row of `terms` over every record `request` returns.
    static func whole(_ request: QueryRequest<StoredRecord>, _ terms: [AggregateTerm]) throws -> (columns: [String], rows: [[JSONValue]]) {
        let row: [JSONValue] = try terms.map { term in
            let field = term.aggregate.field.joined(separator: ".")
            switch term.aggregate.function {
            case .count: return .int(Int64(try request.count()))
            case .sum: return try request.sum(field)?.jsonValue ?? .null
            case .average: return try request.average(field).map(JSONValue.double) ?? .null
            case .min: return try request.min(field)?.jsonValue ?? .null
            case .max: return try request.max(field)?.jsonValue ?? .null
            }
        }
        return (terms.map(\.column), [row])
    }

    /// The distinct values of `field` among the records `request` returns, one a row.
    static func distinct(_ request: QueryRequest<StoredRecord>, _ field: String) throws -> (columns: [String], rows: [[JSONValue]]) {
        ([field], try request.distinct(field).map { [$0.jsonValue] })
    }

    private static func groups(_ request: QueryRequest<StoredRecord>, by field: String,
                               _ aggregates: [Aggregate<StoredRecord>]) throws -> AggregateGroups<StoredRecord, QueryValue> {
        switch aggregates.count {
        case 0: try request.group(by: field)
        case 1: try request.group(by: field, aggregating: aggregates[0])
        case 2: try request.group(by: field, aggregating: aggregates[0], aggregates[1])
        case 3: try request.group(by: field, aggregating: aggregates[0], aggregates[1], aggregates[2])
        default: try request.group(by: field, aggregating: aggregates[0], aggregates[1], aggregates[2], aggregates[3])
        }
    }
}

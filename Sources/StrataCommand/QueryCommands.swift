import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// The arguments every query-shaped command shares.
struct QueryArguments: ParsableArguments {
    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The entity to query.") var entity: String
    @Argument(help: "A predicate in the format language; may end with ORDER BY ... LIMIT n OFFSET n.") var predicate: String?
    @Option(help: "Sort order, e.g. \"lastName desc,luckyNumber\"; name[cd] folds case and diacritics (Åland beside albania).") var sort: String?
    @Option(parsing: .unconditional, help: "At most N records.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip the first N records.") var offset: Int?
    @OptionGroup var access: ReadOnlyFlag

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative (it is \(limit))") }
        if let offset, offset < 0 { throw ValidationError("--offset must not be negative (it is \(offset))") }
    }

    /// The query these arguments describe, in `tx`.
    func request(_ tx: ReadTransaction) throws -> QueryRequest<StoredRecord> {
        var request = try tx.query(entity: entity)
        if let predicate { request = try request.where(predicate, arguments: []) }
        if let sort { request = try request.sorted(by: sort) }
        if let offset { request = request.offset(offset) }
        if let limit { request = request.limit(limit) }
        return request
    }
}

extension TimeoutOption {
    /// The store at `path`, its queries limited to `--timeout`; read-only for a command that only
    /// reads. Warnings go to standard error through ``Terminal``.
    func openStore(_ path: String, readOnly: Bool = false) throws -> Store {
        try openStore(path, readOnly: readOnly, warnings: Terminal.error)
    }
}

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the records of an entity that match a predicate.",
        discussion: """
            Examples:
              strata query app.strata User 'lastName ==[cd] "bluth" ORDER BY luckyNumber DESC LIMIT 3'
              strata query app.strata User --sort "lastName desc,luckyNumber" --limit 10 --format csv
              strata query app.strata User 'luckyNumber > 5' --count
              strata query app.strata User 'luckyNumber > 5' --group-by lastName --aggregate 'count,avg(luckyNumber),max(luckyNumber)'
              strata query app.strata User --aggregate 'min(createdAt),max(createdAt)'
              strata query app.strata User --distinct city --format csv

            --group-by prints a row a group (ordered by its value, records without one first) with \
            the aggregates of --aggregate (count unless given): count, sum(FIELD), avg(FIELD), \
            min(FIELD), max(FIELD); --aggregate alone prints one row over every record. Nil values are \
            skipped, as in SQL. A predicate, --limit and --offset choose the records aggregated.
            """
    )

    @OptionGroup var query: QueryArguments
    @OptionGroup var limit: TimeoutOption
    @Flag(help: "Print only the number of matching records.") var count = false
    @Option(help: "The fields to print, comma-separated (default: all).") var fields: String?
    @Option(help: ArgumentHelp("Print a row for each value of this field, with the aggregates of --aggregate (count unless given).", valueName: "field"))
    var groupBy: String?
    @Option(help: ArgumentHelp("Aggregates to print, comma-separated: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD); per group with --group-by.",
                               valueName: "list"))
    var aggregate: String?
    @Option(help: ArgumentHelp("Print the distinct values of this field, one a row, in order (nil first).", valueName: "field"))
    var distinct: String?
    @Option(help: "table (default on a terminal), json (default otherwise), jsonl, csv or tsv.") var format: OutputFormat?

    func validate() throws {
        let aggregating = groupBy != nil || aggregate != nil
        if count, aggregating || distinct != nil { throw ValidationError("--count prints one number; it does not go with --group-by, --aggregate or --distinct") }
        if distinct != nil, aggregating { throw ValidationError("--distinct prints a field's values; it does not go with --group-by or --aggregate") }
        if fields != nil, aggregating || distinct != nil {
            throw ValidationError("--fields chooses the fields of records; aggregates print the columns they name")
        }
        if let aggregate {
            do { _ = try AggregateTerm.parse(aggregate) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let store = try limit.openStore(query.store, readOnly: true)
        try store.read { tx in
            let request = try query.request(tx)
            if count {
                Terminal.write("\(try request.count())\n")
                return
            }
            if groupBy != nil || aggregate != nil || distinct != nil {
                try printAggregates(request)
                return
            }
            let columns = try outputColumns(fields, entity: query.entity, tx)
            var output = RecordOutput(format: format ?? .automatic, columns: columns, everyField: fields == nil)
            output.begin()
            try output.addAll(request)
            output.end()
        }
    }
}

extension QueryCommand {
    /// `--group-by`, `--aggregate` or `--distinct`: their rows in the output format.
    private func printAggregates(_ request: QueryRequest<StoredRecord>) throws {
        let terms = try aggregate.map { list in try AggregateTerm.parse(list) } ?? [AggregateTerm(aggregate: .count, column: "count")]
        let result: (columns: [String], rows: [[JSONValue]])
        let rowName: String
        if let distinct {
            (result, rowName) = (try AggregateQuery.distinct(request, distinct), "value")
        } else if let groupBy {
            (result, rowName) = (try AggregateQuery.grouped(request, by: groupBy, terms), "group")
        } else {
            (result, rowName) = (try AggregateQuery.whole(request, terms), "row")
        }
        var output = RecordOutput(format: format ?? .automatic, columns: result.columns)
        output.rowName = rowName
        output.begin()
        for row in result.rows { output.addRow(row) }
        output.end()
    }
}

/// The fields to print: those named by `--fields`, each checked against every field the entity
/// has (its field table and description, as a condition's field is checked), else every field
/// the entity's records have.
func outputColumns(_ fields: String?, entity: String, _ tx: ReadTransaction) throws -> [String] {
    guard let fields else { return try tx.entityDescription(named: entity, sampleLimit: StoredFieldSample.lookupRecords).fields.map(\.name) }
    let named = fields.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    try tx.checkFieldNames(named, of: entity, for: "--fields")
    return named
}

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print the plan the query planner chooses for a query, without running it.",
        discussion: "Example: strata explain app.strata User 'lastName == \"Bluth\" AND luckyNumber > 5' --sort luckyNumber --limit 10"
    )

    @OptionGroup var query: QueryArguments
    @OptionGroup var limit: TimeoutOption
    @Flag(help: "Draw the plan as an indented tree, one step a line, with each step's estimated rows.") var tree = false
    @Flag(help: "Run the query and add each step's actual rows and time (implies --tree unless --format json).") var analyze = false
    @Option(help: "table (the plan as text, default) or json (the plan as one structured object).") var format: OutputFormat?
    @Flag(help: .hidden) var json = false

    func run() throws {
        let format = try OutputFormat.check(json ? .json : format ?? .table, allowed: [.table, .json])
        let (plan, steps) = try limit.openStore(query.store, readOnly: true).read { tx in
            let request = try query.request(tx)
            if analyze { return try request.analyze() }
            let plan = try request.explain()
            return (plan, plan.steps)
        }
        switch format {
        case .json: Terminal.write(plan.jsonObject(steps).jsonText + "\n")
        default:
            if tree || analyze {
                Terminal.write(plan.tree(steps))
            } else {
                Terminal.write("\(plan)\nestimated rows: \(plan.estimatedRows)\n")
            }
        }
    }
}

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete one record by key, or every record matching a predicate, in one write transaction.",
        discussion: """
            Examples:
              strata delete app.strata User --key 42
              strata delete app.strata User 'active == false AND updatedAt < CAST("2020-01-01T00:00:00Z", "NSDate")'
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Delete the records matching this predicate.") var predicate: String?
    @Option(parsing: .unconditionalSingleValue,
            help: "Delete the record with this primary key (a negative number needs no quoting); a compound key takes --key once per field, in key order.")
    var key: [String] = []
    @OptionGroup var limit: TimeoutOption

    func validate() throws {
        if key.isEmpty == (predicate == nil) { throw ValidationError("give either --key KEY or a PREDICATE") }
    }

    func run() throws {
        // A query that runs out of time throws in the write, which then rolls back whole.
        let store = try limit.openStore(store)
        if !key.isEmpty {
            let key = QueryValue(primaryKeyArguments: self.key)
            let deleted = try store.write { tx in try tx.delete(entity: entity, key: key) }
            guard deleted else { throw CommandFailure(message: "\(entity) has no record with key \(key.keyDescription)") }
            Terminal.write("deleted 1 record\n")
        } else if let predicate {
            let deleted = try store.write { tx in try tx.delete(entity: entity, where: predicate) }
            Terminal.write("deleted \(deleted) record\(deleted == 1 ? "" : "s")\n")
        }
    }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every record of an entity as JSON, JSON lines, CSV or TSV, in primary key order.",
        discussion: "With --json-keys, fields are named by the JSON keys they were imported from, so the export imports again."
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The entity.") var entity: String
    @Option(help: "json (an array, default), jsonl (one object a line), csv or tsv (a header line, then one line a record).") var format: OutputFormat = .json
    @Flag(help: "Name fields by their JSON keys, the import's mapping reversed.") var jsonKeys = false
    @Flag(help: "Nest each record's related records (to-one as an object, to-many as arrays), one level deep.") var nested = false
    @OptionGroup var limit: TimeoutOption
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        let format = try OutputFormat.check(self.format, allowed: nested ? [.json, .jsonl] : [.json, .jsonl, .csv, .tsv])
        try limit.openStore(store, readOnly: true).read { tx in
            let description = try tx.entityDescription(named: entity, sampleLimit: StoredFieldSample.lookupRecords)
            let renamed = jsonKeys ? description.exportedKeys : [:]
            if nested {
                // Each record with its related records, one JSON value per record.
                var count = 0
                if format == .json { Terminal.write("[") }
                try tx.query(entity: entity).forEach { record in
                    guard let value = try tx.exportJSON(entity: entity, key: record.key, jsonKeys: jsonKeys) else { return }
                    Terminal.write(format == .json ? (count == 0 ? "\n  " : ",\n  ") + value.jsonText : value.jsonText + "\n")
                    count += 1
                }
                if format == .json { Terminal.write(count == 0 ? "]\n" : "\n]\n") }
                return
            }
            var output = RecordOutput(format: format, columns: description.fields.map(\.name), renamed: renamed, everyField: true)
            output.begin()
            try output.addAll(tx.query(entity: entity))
            output.end()
        }
    }
}

extension QueryValue {
    /// A primary key as command-line arguments give it: one value as text (converted to the
    /// key's type by the store), several as the values of a compound key in key order.
    init(primaryKeyArguments arguments: [String]) {
        self = arguments.count == 1 ? .string(arguments[0]) : .list(arguments.map(QueryValue.string))
    }
}

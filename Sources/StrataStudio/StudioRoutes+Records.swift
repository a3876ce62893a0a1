import Foundation
import Hummingbird
import Strata

/// The record routes: a page of an entity's records by key (keyset paging, never an offset),
/// sorted by the key or an indexed field, and one record with its related records.
extension Studio {
    func addRecordRoutes(_ router: StudioRouter) {
        router.add(.get, "/api/entities/{entity}/records") { [self] request, context in
            let name = try context.parameters.require("entity")
            let parameters = request.uri.queryParameters
            let limit = try pageSize(parameters["limit"].map(String.init))
            let sort = parameters["sort"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let descending = parameters["desc"].map { $0 == "1" || $0 == "true" } ?? false
            let after = parameters["after"].map(String.init)
            let page = try await store.read { tx in
                try RecordPage.read(tx, entity: name, sort: sort, descending: descending, after: after, limit: limit)
            }
            return StudioResponse.json(page.json)
        }
        router.add(.get, "/api/entities/{entity}/records/{key}") { [store] _, context in
            let name = try context.parameters.require("entity")
            let key = try context.parameters.require("key")
            let json = try await store.read { tx -> JSONValue in
                guard let record = try tx.record(entity: name, key: .string(key)) else {
                    throw StudioError(.notFound, "notFound", "\(name) has no record with key \(key)")
                }
                return .object([
                    JSONMember(key: "entity", value: .string(name)),
                    JSONMember(key: "key", value: record.key.jsonValue),
                    JSONMember(key: "record", value: record.jsonObject()),
                    JSONMember(key: "related", value: .array(try RecordPage.related(tx, entity: name, record: record))),
                ])
            }
            return StudioResponse.json(json)
        }
    }

    /// The `limit` parameter: 50 unless given, at most ``StudioOptions/maxPageSize``.
    func pageSize(_ text: String?) throws -> Int {
        guard let text else { return 50 }
        guard let value = Int(text), value >= 1, value <= options.maxPageSize else {
            throw StudioError(.badRequest, "invalidParameter", "limit must be a whole number from 1 to \(options.maxPageSize) (it is '\(text.prefix(40))')")
        }
        return value
    }
}

/// One page of records in key order or in an indexed field's order, continuing after a record.
struct RecordPage {
    var entity: String
    var sort: String
    var descending: Bool
    var records: [StoredRecord]
    var next: String?

    /// The page of `limit` records of `entity` after the record whose key is `after` (from the
    /// first when nil), in the order of `sort` (the primary key when nil; otherwise a field some
    /// index starts with, in the index's order: by value, ascending or descending, then by key
    /// ascending). Every read is a range of the key or of that index, never an offset: after the
    /// record (v, k), the records equal to v with a key above k, then those beyond v.
    static func read(_ tx: ReadTransaction, entity: String, sort: String?, descending: Bool, after: String?,
                     limit: Int) throws -> RecordPage {
        let description = try tx.entityDescription(named: entity)
        guard description.primaryKeyFields.count == 1, let keyField = description.primaryKeyFields.first else {
            throw StudioError(.badRequest, "compoundKey", "paging by key needs a single-field primary key; \(entity) is keyed by \(description.primaryKey)")
        }
        let field = sort ?? keyField
        let order = descending ? " desc" : ""
        let beyond = descending ? "<" : ">"
        var records: [StoredRecord]
        if field == keyField {
            var request = try tx.query(entity: entity).sorted(by: keyField + order)
            if let after {
                request = try request.where("\(keyField) \(beyond) %@", arguments: [try last(tx, entity, after).key])
            }
            records = try request.limit(limit + 1).all()
        } else {
            guard let index = description.indexes.first(where: { $0.fields.first == field }) else {
                let indexed = description.indexes.compactMap(\.fields.first)
                throw StudioError(.badRequest, "notIndexed", "records sort by the key or an indexed field; '\(field.prefix(80))' is neither"
                    + " (indexed: \(indexed.isEmpty ? "none" : indexed.joined(separator: ", ")))")
            }
            // The index's collation, so that the planner reads the index in its order ([cd]: folded).
            let options = switch index.collation {
            case .binary: ""
            case .caseInsensitive: "[c]"
            case .caseAndDiacriticInsensitive: "[cd]"
            }
            let sorted = field + options + order
            guard let after else {
                return RecordPage(entity: entity, sort: field, descending: descending,
                                  records: try tx.query(entity: entity).sorted(by: sorted).limit(limit + 1).all(), limit: limit)
            }
            let last = try last(tx, entity, after)
            var value = QueryValue(json: last[field] ?? .null)
            // A date is JSON text: compare it as the date it is.
            if case .string(let text) = value, description.fields.first(where: { $0.name == field })?.type == .scalar(.date) {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions.insert(.withFractionalSeconds)
                if let date = ISO8601DateFormatter().date(from: text) ?? formatter.date(from: text) { value = .date(date) }
            }
            // The records equal to the last one's value with a greater key (an index keeps equal values
            // in key order, read forwards or backwards: `year desc` is year descending, then key ascending)…
            let equal = value == .null ? "\(field) == nil" : "\(field) ==\(options) %@"
            let equalArguments: [any Sendable] = value == .null ? [last.key] : [value, last.key]
            records = try tx.query(entity: entity).where("\(equal) AND \(keyField) > %@", arguments: equalArguments)
                .sorted(by: sorted).limit(limit + 1).all()
            // …then those beyond its value (nulls come first in an index's order, last backwards).
            if records.count <= limit && !(value == .null && descending) {
                let rest = value == .null ? try tx.query(entity: entity).where("\(field) != nil", arguments: [])
                    : try tx.query(entity: entity).where("\(field) \(beyond)\(options) %@", arguments: [value])
                records += try rest.sorted(by: sorted).limit(limit + 1 - records.count).all()
            }
            // Descending, the nulls come last, by key.
            if records.count <= limit && descending && value != .null {
                records += try tx.query(entity: entity).where("\(field) == nil", arguments: []).sorted(by: keyField)
                    .limit(limit + 1 - records.count).all()
            }
        }
        return RecordPage(entity: entity, sort: field, descending: descending, records: records, limit: limit)
    }

    /// The page of the first `limit` of `records` (one more tells there is a next page).
    init(entity: String, sort: String, descending: Bool, records: [StoredRecord], limit: Int) {
        self.entity = entity
        self.sort = sort
        self.descending = descending
        self.records = Array(records.prefix(limit))
        next = records.count > limit ? self.records.last.map { Self.keyText($0.key) } : nil
    }

    /// The record a page continues after, or 404.
    private static func last(_ tx: ReadTransaction, _ entity: String, _ key: String) throws -> StoredRecord {
        guard let record = try tx.record(entity: entity, key: .string(key)) else {
            throw StudioError(.notFound, "notFound", "\(entity) has no record with key \(key.prefix(80)) to page after")
        }
        return record
    }

    /// A key as the routes take it back (`after=`, `/records/{key}`): a number's digits, a string itself.
    static func keyText(_ key: QueryValue) -> String {
        if case .string(let text) = key { return text }
        let json = key.jsonValue
        if case .string(let text) = json { return text }
        return json.jsonText
    }

    var json: JSONValue {
        var columns: [String] = []
        for record in records { for member in record.fields where !columns.contains(member.key) { columns.append(member.key) } }
        return .object([
            JSONMember(key: "entity", value: .string(entity)),
            JSONMember(key: "sort", value: .string(sort)),
            JSONMember(key: "descending", value: .bool(descending)),
            JSONMember(key: "columns", value: .array(columns.map { .string($0) })),
            JSONMember(key: "records", value: .array(records.map { record in
                .object([JSONMember(key: "key", value: .string(Self.keyText(record.key))), JSONMember(key: "record", value: record.jsonObject())])
            })),
            JSONMember(key: "next", value: next.map { .string($0) } ?? .null),
        ])
    }

    /// The records `record` is related to through each relationship of `entity` (a to-one's
    /// target, a to-many's targets, at most 50), and those of other entities whose to-one
    /// relationship points at it (at most 50 each).
    static func related(_ tx: ReadTransaction, entity: String, record: StoredRecord) throws -> [JSONValue] {
        var groups: [JSONValue] = []
        let description = try tx.entityDescription(named: entity)
        for relationship in description.relationships {
            var keys: [JSONValue] = []
            switch record[relationship.keyField] {
            case .array(let values)?: keys = Array(values.prefix(50))
            case let value? where value != .null: keys = [value]
            default: break
            }
            let targets = try keys.compactMap { try tx.record(entity: relationship.target, key: QueryValue(json: $0)) }
            groups.append(group(relationship.name, relationship.target, targets))
        }
        for other in try tx.entityNames() {
            for relationship in try tx.entityDescription(named: other).relationships
            where relationship.target == entity && relationship.kind == .toOne {
                let pointing = try tx.query(entity: other).where("\(relationship.keyField) == %@", arguments: [record.key]).limit(50).all()
                groups.append(group("\(other).\(relationship.name)", other, pointing))
            }
        }
        return groups
    }

    private static func group(_ name: String, _ entity: String, _ records: [StoredRecord]) -> JSONValue {
        .object([
            JSONMember(key: "relationship", value: .string(name)),
            JSONMember(key: "entity", value: .string(entity)),
            JSONMember(key: "records", value: .array(records.map { record in
                .object([JSONMember(key: "key", value: .string(keyText(record.key))), JSONMember(key: "record", value: record.jsonObject())])
            })),
        ])
    }
}

extension QueryValue {
    /// A JSON scalar as a query value (an array as a list); objects become their JSON text.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .wideInt(let value): self = .wideInt(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .list(values.map(QueryValue.init(json:)))
        default: self = .string(json.jsonText)
        }
    }
}

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
    /// index starts with), then the key. The page is a range read: `sort > v OR (sort == v AND key > k)`.
    static func read(_ tx: ReadTransaction, entity: String, sort: String?, descending: Bool, after: String?,
                     limit: Int) throws -> RecordPage {
        let description = try tx.entityDescription(named: entity)
        guard description.primaryKeyFields.count == 1, let keyField = description.primaryKeyFields.first else {
            throw StudioError(.badRequest, "compoundKey", "paging by key needs a single-field primary key; \(entity) is keyed by \(description.primaryKey)")
        }
        let field = sort ?? keyField
        if field != keyField && !description.indexes.contains(where: { $0.fields.first == field }) {
            let indexed = description.indexes.compactMap(\.fields.first)
            throw StudioError(.badRequest, "notIndexed", "records sort by the key or an indexed field; '\(field.prefix(80))' is neither"
                + " (indexed: \(indexed.isEmpty ? "none" : indexed.joined(separator: ", ")))")
        }
        let order = descending ? " desc" : ""
        var request = try tx.query(entity: entity)
        request = try request.sorted(by: field == keyField ? "\(keyField)\(order)" : "\(field)\(order),\(keyField)\(order)")
        if let after {
            guard let last = try tx.record(entity: entity, key: .string(after)) else {
                throw StudioError(.notFound, "notFound", "\(entity) has no record with key \(after.prefix(80)) to page after")
            }
            let beyond = descending ? "<" : ">"
            if field == keyField {
                request = try request.where("\(keyField) \(beyond) %@", arguments: [last.key])
            } else {
                let value = QueryValue(json: last[field] ?? .null)
                request = try request.where("\(field) \(beyond) %@ OR (\(field) == %@ AND \(keyField) \(beyond) %@)",
                                            arguments: [value, value, last.key])
            }
        }
        var records = try request.limit(limit + 1).all()
        var next: String?
        if records.count > limit {
            records.removeLast()
            next = records.last.map { Self.keyText($0.key) }
        }
        return RecordPage(entity: entity, sort: field, descending: descending, records: records, next: next)
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

import Foundation
import Hummingbird
import Strata

/// The entity routes: the list with counts, one entity's schema and indexes, every relationship.
extension Studio {
    func addEntityRoutes(_ router: StudioRouter) {
        router.add(.get, "/api/entities") { [store] _, _ in
            let statistics = try store.statistics()
            let descriptions = try await store.read { tx in try tx.entityNames().map { try tx.entityDescription(named: $0) } }
            return StudioResponse.json(.object([JSONMember(key: "entities", value: .array(descriptions.map { description in
                let found = statistics.entities.first { $0.name == description.name }
                return .object([
                    JSONMember(key: "name", value: .string(description.name)),
                    JSONMember(key: "records", value: .int(Int64(found?.records ?? 0))),
                    JSONMember(key: "bytes", value: .int(Int64(found?.bytes ?? 0))),
                    JSONMember(key: "primaryKey", value: .array(description.primaryKeyFields.map { .string($0) })),
                    JSONMember(key: "indexes", value: .int(Int64(description.indexes.count + description.fullTextIndexes.count))),
                    JSONMember(key: "relationships", value: .int(Int64(description.relationships.count))),
                ])
            }))]))
        }
        router.add(.get, "/api/entities/{entity}/schema") { [store] _, context in
            let name = try context.parameters.require("entity")
            let description = try await store.read { tx in try tx.entityDescription(named: name) }
            return StudioResponse.json(Self.schemaJSON(description))
        }
        router.add(.get, "/api/entities/{entity}/indexes") { [store] _, context in
            let name = try context.parameters.require("entity")
            try await store.read { tx in _ = try tx.query(entity: name) }   // `.notFound` naming the entities there are
            let statistics = try store.statistics()
            let found = statistics.entities.first { $0.name == name }
            let indexes: [JSONValue] = (found?.indexes ?? []).map { index in
                .object([
                    JSONMember(key: "name", value: .string(index.name)),
                    JSONMember(key: "entries", value: .int(Int64(index.entries))),
                    JSONMember(key: "bytes", value: .int(Int64(index.bytes))),
                    JSONMember(key: "unique", value: .bool(index.unique)),
                    JSONMember(key: "multiValue", value: .bool(index.multiValue)),
                    JSONMember(key: "fullText", value: .bool(false)),
                ])
            } + (found?.fullTextIndexes ?? []).map { index in
                .object([
                    JSONMember(key: "name", value: .string(index.declaration.name)),
                    JSONMember(key: "entries", value: .int(Int64(index.documents))),
                    JSONMember(key: "bytes", value: .int(Int64(index.bytes))),
                    JSONMember(key: "unique", value: .bool(false)),
                    JSONMember(key: "multiValue", value: .bool(false)),
                    JSONMember(key: "fullText", value: .bool(true)),
                ])
            }
            return StudioResponse.json(.object([
                JSONMember(key: "entity", value: .string(name)),
                JSONMember(key: "records", value: .int(Int64(found?.records ?? 0))),
                JSONMember(key: "indexes", value: .array(indexes)),
            ]))
        }
        router.add(.get, "/api/relationships") { [store] _, _ in
            let descriptions = try await store.read { tx in try tx.entityNames().map { try tx.entityDescription(named: $0) } }
            let relationships: [JSONValue] = descriptions.flatMap { description in
                description.relationships.map { relationship in
                    .object([
                        JSONMember(key: "entity", value: .string(description.name)),
                        JSONMember(key: "name", value: .string(relationship.name)),
                        JSONMember(key: "kind", value: .string(relationship.kind.rawValue)),
                        JSONMember(key: "target", value: .string(relationship.target)),
                        JSONMember(key: "keyField", value: .string(relationship.keyField)),
                        JSONMember(key: "inverse", value: relationship.inverse.map { .string($0) } ?? .null),
                    ])
                }
            }
            return StudioResponse.json(.object([
                JSONMember(key: "entities", value: .array(descriptions.map { .string($0.name) })),
                JSONMember(key: "relationships", value: .array(relationships)),
            ]))
        }
    }

    /// An entity's schema: its key, each field (name, type, optional, JSON key, default), its
    /// indexes and relationships, and the entity as the schema file writes it (`strata schema show`).
    static func schemaJSON(_ description: EntityDescription) -> JSONValue {
        let file = SchemaFile(entities: [description]).jsonValue
        return .object([
            JSONMember(key: "name", value: .string(description.name)),
            JSONMember(key: "primaryKey", value: .array(description.primaryKeyFields.map { .string($0) })),
            JSONMember(key: "fields", value: .array(description.fields.map { field in
                .object([
                    JSONMember(key: "name", value: .string(field.name)),
                    JSONMember(key: "type", value: .string(field.type.description)),
                    JSONMember(key: "optional", value: .bool(field.isOptional)),
                    JSONMember(key: "jsonKey", value: .string(field.jsonKey ?? field.name)),
                    JSONMember(key: "default", value: field.defaultValue ?? .null),
                ])
            })),
            JSONMember(key: "indexes", value: .array(description.indexes.map { index in
                .object([
                    JSONMember(key: "fields", value: .array(index.fields.map { .string($0) })),
                    JSONMember(key: "unique", value: .bool(index.isUnique)),
                    JSONMember(key: "multiValue", value: .bool(index.isMultiValue)),
                ])
            })),
            JSONMember(key: "schemaFile", value: file["entities"]?[description.name] ?? .null),
        ])
    }
}

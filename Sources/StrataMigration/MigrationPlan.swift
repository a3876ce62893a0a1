import Foundation

/// Migrations written as JSON rather than Swift: what `strata migrate STORE PLAN.json` applies,
/// and a program may load too. Each step is one of the ``WriteTransaction`` migration operations.
///
/// ```json
/// { "migrations": [
///   { "name": "v2", "steps": [
///     {"op": "renameField", "entity": "User", "field": "fullName", "to": "name"},
///     {"op": "renameField", "entity": "User", "field": "nick", "to": "nickname", "json": "nick_name"},
///     {"op": "addField", "entity": "User", "field": "plan", "type": "string", "default": "free"},
///     {"op": "changeType", "entity": "User", "field": "age", "type": "int"},
///     {"op": "removeField", "entity": "User", "field": "nickname"},
///     {"op": "compact", "entity": "User"},
///     {"op": "addIndex", "entity": "User", "fields": ["age"], "unique": false, "collation": "binary"},
///     {"op": "dropIndex", "entity": "User", "index": "fullName"},
///     {"op": "addFullTextIndex", "entity": "User", "fields": ["bio", "name"], "weights": [1, 2], "stemming": "english"},
///     {"op": "dropFullTextIndex", "entity": "User", "index": "bio,name"},
///     {"op": "renameEntity", "entity": "User", "to": "Member"} ] } ] }
/// ```
/// Types are the schema file's (``SchemaFile``): `string int double bool date [string] ...`. A
/// renamed field keeps its JSON key (its old name, when it had none) unless the step's `"json"`
/// gives another.
public struct MigrationPlan: Sendable, Hashable {
    /// One named migration of a plan.
    public struct Migration: Sendable, Hashable {
        /// Its name, as the store's history records it.
        public var name: String
        /// What it does, in order.
        public var steps: [Step]

        /// A migration named `name` doing `steps`.
        public init(name: String, steps: [Step]) {
            self.name = name
            self.steps = steps
        }
    }

    /// One operation of a migration.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// ``WriteTransaction/renameField(_:to:in:jsonKey:)``: `jsonKey` (`"json"` in the plan) is
        /// the field's new JSON key; nil keeps its key.
        case renameField(entity: String, field: String, to: String, jsonKey: String? = nil)
        /// ``WriteTransaction/renameEntity(_:to:)``.
        case renameEntity(entity: String, to: String)
        /// ``WriteTransaction/removeField(_:from:)``.
        case removeField(entity: String, field: String)
        /// ``WriteTransaction/addField(_:to:)``, with the field's default when it has one.
        case addField(entity: String, field: FieldDescription)
        /// ``WriteTransaction/changeFieldType(_:in:to:)``.
        case changeType(entity: String, field: String, type: FieldType)
        /// ``WriteTransaction/addIndex(_:toEntity:)``.
        case addIndex(entity: String, index: IndexDescription)
        /// ``WriteTransaction/dropIndex(named:fromEntity:)``.
        case dropIndex(entity: String, index: String)
        /// ``WriteTransaction/compactRecords(of:)``.
        case compact(entity: String)
        /// ``WriteTransaction/addFullTextIndex(_:toEntity:)``; in a plan, the step's `fields`,
        /// `weights`, `stemming`, `stopWords` and `name` are a schema file's `"fullText"` object's.
        case addFullTextIndex(entity: String, index: FullTextIndexDescription)
        /// ``WriteTransaction/dropFullTextIndex(named:fromEntity:)``.
        case dropFullTextIndex(entity: String, index: String)

        /// The step as a line of a report: `rename User.fullName to name`. A name with a control
        /// character is quoted with it escaped (`"a\u{1B}b"`), so that printing it cannot move a
        /// terminal's cursor.
        public var description: String {
            let v = EntityDescription.visible
            return switch self {
            case .renameField(let entity, let field, let to, let jsonKey):
                "rename field \(v(entity)).\(v(field)) to \(v(to))" + (jsonKey.map { " (JSON key '\(v($0))')" } ?? "")
            case .renameEntity(let entity, let to): "rename entity \(v(entity)) to \(v(to))"
            case .removeField(let entity, let field): "remove field \(v(entity)).\(v(field))"
            case .addField(let entity, let field):
                "add field \(v(entity)).\(v(field.name)): \(field.type)" + (field.defaultValue.map { " = \(Self.clipped(v("\($0)")))" } ?? "")
            case .changeType(let entity, let field, let type): "change \(v(entity)).\(v(field)) to \(type)"
            case .addIndex(let entity, let index): "add index \(v(entity))(\(v(index.fields.joined(separator: ","))))"
            case .dropIndex(let entity, let index): "drop index \(v(entity)).\(v(index))"
            case .compact(let entity): "compact \(v(entity))"
            case .addFullTextIndex(let entity, let index): "add full-text index \(v(entity))(\(v(index.fields.joined(separator: ","))))"
            case .dropFullTextIndex(let entity, let index): "drop full-text index \(v(entity)).\(v(index))"
            }
        }

        /// `text`, or its first 60 characters and its length when it is longer than 80.
        private static func clipped(_ text: String) -> String {
            text.count <= 80 ? text : "\(text.prefix(60))… (\(text.utf8.count) bytes)"
        }

        /// Runs the step in `tx`.
        func run(_ tx: WriteTransaction) throws {
            switch self {
            case .renameField(let entity, let field, let to, let jsonKey): try tx.renameField(field, to: to, in: entity, jsonKey: jsonKey)
            case .renameEntity(let entity, let to): try tx.renameEntity(entity, to: to)
            case .removeField(let entity, let field): try tx.removeField(field, from: entity)
            case .addField(let entity, let field): try tx.addField(field, to: entity)
            case .changeType(let entity, let field, let type): try tx.changeFieldType(field, in: entity, to: type)
            case .addIndex(let entity, let index): try tx.addIndex(index, toEntity: entity)
            case .dropIndex(let entity, let index): try tx.dropIndex(named: index, fromEntity: entity)
            case .compact(let entity): try tx.compactRecords(of: entity)
            case .addFullTextIndex(let entity, let index): try tx.addFullTextIndex(index, toEntity: entity)
            case .dropFullTextIndex(let entity, let index): try tx.dropFullTextIndex(named: index, fromEntity: entity)
            }
        }
    }

    /// The migrations, in order.
    public var migrations: [Migration]

    /// A plan of `migrations`.
    public init(migrations: [Migration]) { self.migrations = migrations }

    /// The plan as a ``Migrator``: each migration runs its steps in order.
    public var migrator: Migrator {
        var migrator = Migrator()
        for migration in migrations {
            let steps = migration.steps
            migrator.registerMigration(migration.name) { tx in for step in steps { try step.run(tx) } }
            migrator.planSteps[migrator.migrations.count - 1] = steps.map { step in Migrator.Step(description: step.description, run: step.run) }
        }
        return migrator
    }

    /// Reads a plan. Throws `.malformedJSON` with the position for bad JSON and `.invalidValue`
    /// naming the migration and step for a plan that is not valid.
    public init(json data: Data) throws {
        var parser = JSONParser(source: InMemoryByteSource(Array(data)))
        guard let root = try parser.nextRecord(rootKey: nil), try parser.nextRecord(rootKey: nil) == nil,
              case .array(let list)? = root["migrations"] else {
            throw StrataError(.invalidValue, "a migration plan is an object with a \"migrations\" array")
        }
        migrations = try list.enumerated().map { position, value in
            guard case .string(let name)? = value["name"], !name.isEmpty else {
                throw StrataError(.invalidValue, "migration \(position + 1) of the plan has no \"name\"")
            }
            guard case .array(let steps)? = value["steps"] else {
                throw StrataError(.invalidValue, "the migration '\(name)' has no \"steps\" array")
            }
            return Migration(name: name, steps: try steps.enumerated().map { index, step in
                do throws(StrataError) { return try Self.step(step) } catch {
                    throw StrataError(.invalidValue, "the migration '\(name)', step \(index + 1): \(error.message)", entity: error.entity, field: error.field)
                }
            })
        }
    }

    /// What `parse` reads as a schema file reads it; its errors as `.invalidValue`.
    private static func schemaFile<T>(_ parse: () throws -> T) throws(StrataError) -> T {
        do { return try parse() } catch let error as StrataError { throw error } catch {
            throw StrataError(.invalidValue, "\(error)")
        }
    }

    private static func step(_ value: JSONValue) throws(StrataError) -> Step {
        func text(_ key: String) throws(StrataError) -> String {
            guard case .string(let text)? = value[key], !text.isEmpty else {
                throw StrataError(.invalidValue, "\"\(key)\" must be a non-empty string")
            }
            return text
        }
        let entity = try text("entity")
        switch try text("op") {
        case "renameField":
            let jsonKey: String? = value["json"] == nil ? nil : try text("json")
            return .renameField(entity: entity, field: try text("field"), to: try text("to"), jsonKey: jsonKey)
        case "renameEntity": return .renameEntity(entity: entity, to: try text("to"))
        case "removeField": return .removeField(entity: entity, field: try text("field"))
        case "addField":
            let name = try text("field")
            return .addField(entity: entity, field: try schemaFile { try SchemaFile.field(name, value, entity: entity) })
        case "changeType":
            let name = try text("field")
            return .changeType(entity: entity, field: name, type: try schemaFile { try SchemaFile.type(try text("type"), entity: entity, field: name) })
        case "addIndex":
            return .addIndex(entity: entity, index: try schemaFile { try SchemaFile.index(value, entity: entity) })
        case "dropIndex": return .dropIndex(entity: entity, index: try text("index"))
        case "compact": return .compact(entity: entity)
        case "addFullTextIndex":
            let indexes = try schemaFile { try SchemaFile.fullTextIndexes(value, entity: entity) }
            guard let index = indexes.first, indexes.count == 1 else { throw StrataError(.invalidValue, "addFullTextIndex adds one index") }
            try index.validate(entity: entity)
            return .addFullTextIndex(entity: entity, index: index)
        case "dropFullTextIndex": return .dropFullTextIndex(entity: entity, index: try text("index"))
        case let other:
            throw StrataError(.invalidValue,
                "unknown \"op\" '\(other)': one of renameField, renameEntity, removeField, addField, changeType, addIndex, dropIndex, "
                + "addFullTextIndex, dropFullTextIndex, compact")
        }
    }
}

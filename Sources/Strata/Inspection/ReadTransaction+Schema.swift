import Foundation
import LMDB

extension ReadTransaction {
    /// The description of entity `name` in the schema-file format: the one it was last imported
    /// with when there is one, else one inferred from its stored records (each field typed from
    /// the values of up to `sampleLimit` records as `InferredField` types JSON values, optional where a record has nil or lacks it);
    /// with every built index either way. What `strata schema` prints.
    ///
    /// Throws `.notFound` when there is no such entity.
    public func entityDescription(named name: String, sampleLimit: Int = 10_000) throws -> EntityDescription {
        let context = try existingContext(named: name)
        var description: EntityDescription
        if let stored = context.schema.description {
            description = stored
        } else {
            description = EntityDescription(name: name, primaryKey: context.schema.primaryKey,
                                            fields: try inferredFields(context, sampleLimit: sampleLimit))
        }
        description.indexes = context.schema.indexes.map(IndexDescription.init)
        for (position, field) in description.fields.enumerated() where field.defaultValue == nil {
            description.fields[position].defaultValue = context.schema.defaults[field.name].flatMap { try? SingleFieldCoding.jsonValue(from: $0) }
        }
        description.relationships = context.schema.relationships.map(RelationshipDescription.init)
        return description
    }

    /// Field descriptions read from stored records, in field id order.
    private func inferredFields(_ context: EntityContext, sampleLimit: Int) throws -> [FieldDescription] {
        var types: [String: InferredField] = [:]
        var sampled = 0
        try forEachStoredRecord(context) { key, bytes in
            guard sampled < sampleLimit else { return false }
            let record = try StoredRecord(key: key, bytes: bytes, fields: context.schema.fields, entity: context.name)
            var present = Set<String>()
            for member in record.fields {
                present.insert(member.key)
                types[member.key, default: InferredField(firstSeenIn: sampled)].add(member.value)
            }
            for (name, _) in types where !present.contains(name) { types[name]!.isOptional = true }
            sampled += 1
            return true
        }
        // Field ids are assigned in declaration order, so id order is the record type's order.
        return context.schema.fields.names.sorted { $0.key < $1.key }.compactMap { _, name in
            guard let found = types[name] else { return nil }   // a field no sampled record has
            let isKey = name == context.schema.primaryKey
            return FieldDescription(name, found.type ?? .any, optional: !isKey && (found.isOptional || found.firstSeenIn > 0))
        }
    }
}

import Foundation
import LMDB

extension ReadTransaction {
    /// The description of entity `name` in the schema-file format: the one it was last imported
    /// with when there is one, else one inferred from its stored records (each field typed by
    /// the CBOR kinds of its values in up to `sampleLimit` records: text `string`, CBOR dates `date`, UUIDs `uuid`,
    /// byte strings `data`, nested maps `any`; optional where a record has nil or lacks it);
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

    /// Field descriptions read from up to `sampleLimit` stored records by the one sampler of stored
    /// field types (``StoredFieldSample``), in field id order: the key field required, every other
    /// field optional when a sampled record lacks it or holds null.
    private func inferredFields(_ context: EntityContext, sampleLimit: Int) throws -> [FieldDescription] {
        let sample = try StoredFieldSample(context, in: self, records: sampleLimit)
        // Field ids are assigned in declaration order, so id order is the record type's order.
        return context.schema.fields.names.sorted { $0.key < $1.key }.compactMap { _, name in
            guard let found = sample.fields[name] else { return nil }   // a field no sampled record has
            let isKey = name == context.schema.primaryKey
            return FieldDescription(name, found.type ?? .any, optional: !isKey && (found.isOptional || found.firstSeenIn > 0))
        }
    }
}

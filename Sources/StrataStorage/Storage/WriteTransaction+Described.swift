import LMDB

extension WriteTransaction {
    /// The entity of `description`, created when the store has none: with ids for all its fields
    /// and its indexes built, its full-text indexes recorded. Indexes built by other means (a record
    /// type's declaration, the command-line tool) and missing from the description are kept and
    /// maintained, never dropped.
    ///
    /// Throws `.invalidValue` for an invalid description and `.incompatibleStore` when the stored
    /// entity is keyed by another field.
    package func writableContext(for description: EntityDescription) throws -> EntityContext {
        try description.validate()
        let context = try context(named: description.name)
            ?? createEntity(named: description.name, primaryKey: description.primaryKey,
                            primaryKeyKind: ValueKind(description.field(description.primaryKey)?.type ?? .any))
        guard context.schema.primaryKey == description.primaryKey else {
            throw StrataError(.incompatibleStore,
                "\(description.name): the store keys records by '\(context.schema.primaryKey)', the description by '\(description.primaryKey)'",
                entity: description.name, field: description.primaryKey)
        }
        assignFieldIDs(description, context)
        try applyDefaults(description.storedDefaults(), context)
        if context.schema.description != description {
            context.schema.description = description
            context.needsSaving = true
        }
        // The reference fields of relationships are indexed, unless an index leads with them.
        var wanted = description.indexDescriptors
        for relationship in description.relationships {
            let path = FieldPath.components(of: relationship.keyField)
            guard !wanted.contains(where: { $0.fields.first?.path == path }) else { continue }
            var implied = description
            implied.indexes = [IndexDescription(fields: [relationship.keyField], multiValue: relationship.kind == .toMany)]
            wanted += implied.indexDescriptors
        }
        if !description.relationships.isEmpty, context.schema.relationships != description.relationshipDescriptors {
            context.schema.relationships = description.relationshipDescriptors
            context.needsSaving = true
            relationshipsByTarget = [:]
        }
        let missing = wanted.filter { want in !context.schema.indexes.contains { $0.name == want.name } }
        if !missing.isEmpty {
            try migrate(context, to: context.schema.indexes + missing) { toBuild in try buildIndexes(toBuild, context) }
        }
        let missingText = description.fullTextIndexes.filter { want in !context.schema.fullTextIndexes.contains { $0.name == want.name } }
        if !missingText.isEmpty {
            try migrateTextIndexes(context.schema.fullTextIndexes + missingText.map(FullTextIndexDescriptor.current), context) {
                knownFields(of: context, adding: description)
            }
        }
        return context
    }
}

extension EntityDescription {
    /// The catalog's form of the indexes: collations apply to string fields only, so that an index
    /// described here and the same index declared on a record type have the same name.
    package var indexDescriptors: [IndexDescriptor] {
        indexes.map { index in
            let fields = index.fields.map { path -> IndexedField in
                let type = fieldType(at: path) ?? .any
                let kind = ValueKind(type.elementType)
                return IndexedField(path: path.split(separator: ".").map(String.init),
                                    collation: kind == .string ? index.collation : .binary, kind: kind)
            }
            let name = fields.map(\.description).joined(separator: ",")
            return IndexDescriptor(name: name, fields: fields, isUnique: index.isUnique, isMultiValue: index.isMultiValue)
        }
    }
}

extension WriteTransaction {
    /// Gives every described top-level field an id, in declaration order (the order the record
    /// codec would assign them in).
    package func assignFieldIDs(_ description: EntityDescription, _ context: EntityContext) {
        // Assigned in a copy put back once: the context's table is shared (with its `decoding`
        // view), so each assignment through it would copy the whole table.
        var fields = context.schema.fields
        for field in description.fields where fields.id(for: field.name) == nil { fields.assign(field.name) }
        guard fields.count != context.schema.fields.count else { return }
        context.schema.fields = fields
        context.needsSaving = true
    }
}

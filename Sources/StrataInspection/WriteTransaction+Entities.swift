import LMDB

extension WriteTransaction {
    /// Deletes the record of entity `name` whose primary key is `key`, keeping its indexes in
    /// step; false when there is none. `key` is converted as ``ReadTransaction/record(entity:key:)``
    /// converts it.
    @discardableResult
    public func delete(entity name: String, key: QueryValue) throws -> Bool {
        let context = try existingContext(named: name)
        var deleting = Set<[UInt8]>()
        return try deleteStoredRecord(try storedPrimaryKey(key, context), context, deleting: &deleting)
    }

    /// Deletes every record of entity `name` that matches a predicate in the format language
    /// (with its optional `ORDER BY`/`LIMIT`/`OFFSET` window) and returns how many it deleted.
    @discardableResult
    public func delete(entity name: String, where format: String, arguments: [any Sendable] = []) throws -> Int {
        let context = try existingContext(named: name)
        let keys = try query(entity: name).where(format, arguments: arguments).storedKeys()
        var deleted = 0
        var deleting = Set<[UInt8]>()
        for key in keys where try deleteStoredRecord(key, context, deleting: &deleting) { deleted += 1 }
        return deleted
    }

    /// Builds a new index on entity `name` from its stored records and maintains it from then on,
    /// as if the record type or schema had declared it. Throws `.invalidValue` for an unknown
    /// field or an index that exists, `.uniqueViolation` when a unique index finds two records
    /// with one value (nothing is built then).
    public func addIndex(_ index: IndexDescription, toEntity name: String) throws {
        let context = try existingContext(named: name)
        try knownFields(of: context).check(index: index.fields.map { $0.split(separator: ".").map(String.init) })
        var description = try entityDescription(named: name, sampleLimit: StoredFieldSample.lookupRecords)
        description.indexes = [index]
        try description.validate()
        guard let descriptor = description.indexDescriptors.first else { return }
        guard !context.schema.indexes.contains(where: { $0.name == descriptor.name }) else {
            throw StrataError(.invalidValue, "\(name) already has the index '\(descriptor.name)'", entity: name)
        }
        guard descriptor.hasStandardKeys else {
            throw StrataError(.invalidValue, "\(name): the index '\(descriptor.name)' has a field whose values have no standard key encoding",
                              entity: name)
        }
        try migrate(context, to: context.schema.indexes + [descriptor]) { toBuild in try buildIndexes(toBuild, context) }
        if var stored = context.schema.description {
            stored.indexes.append(index)
            context.schema.description = stored
        }
    }

    /// Drops the index named `index` (as `strata index list` names it) from entity `name`.
    /// Throws `.notFound` when it has no such index. A record type that declares the index
    /// builds it again on its next write.
    public func dropIndex(named index: String, fromEntity name: String) throws {
        let context = try existingContext(named: name)
        guard context.schema.indexes.contains(where: { $0.name == index }) else {
            throw StrataError(.notFound, "\(name) has no index '\(index)'; it has "
                + (context.schema.indexes.isEmpty ? "none" : context.schema.indexes.map { "'\($0.name)'" }.joined(separator: ", ")),
                entity: name)
        }
        try migrate(context, to: context.schema.indexes.filter { $0.name != index }) { _ in }
        if var stored = context.schema.description {
            let remaining = Set(context.schema.indexes.map(\.name))
            stored.indexes = stored.indexes.filter { described in
                EntityDescription(name: name, primaryKey: stored.primaryKey, fields: stored.fields, indexes: [described])
                    .indexDescriptors.allSatisfy { remaining.contains($0.name) }
            }
            context.schema.description = stored
        }
    }
}

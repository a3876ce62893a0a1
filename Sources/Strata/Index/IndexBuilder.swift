import LMDB

/// How far the building of new indexes has come, reported to ``Store/Configuration/indexBuildProgress``.
public struct IndexBuildProgress: Sendable, Equatable {
    /// The entity whose indexes are being built.
    public var entity: String
    /// The indexes being built, by name.
    public var indexes: [String]
    /// Records indexed so far, and in all.
    public var completed: Int, total: Int

    /// Between 0 and 1.
    public var fractionCompleted: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

extension WriteTransaction {
    /// Brings the built indexes of `type`'s entity in line with the declared ones: builds new ones
    /// from the stored records, empties removed ones, rebuilds changed ones, and records the result
    /// in the catalog. Runs once per entity and transaction.
    ///
    /// Removed indexes are emptied rather than deleted: other transactions of this process may still
    /// hold the database handle, and LMDB closes handles of deleted databases.
    func migrateIndexes<T: Record>(_ type: T.Type, _ context: EntityContext) throws {
        guard !context.indexesChecked else { return }
        context.indexesChecked = true
        // Closures, not key path literals: a key path on a generic type is instantiated at run time
        // on every call (`swift_getKeyPath`), which cost a sixth of a small write transaction.
        precondition(Set(T.indexes.map { $0.name }).count == T.indexes.count,
                     "\(T.self).indexes declares two indexes with the same name")
        let declared = T.maintainedIndexes
        let descriptors = T.relationships.map { $0.descriptor }
        if context.schema.relationships != descriptors {
            context.schema.relationships = descriptors
            context.needsSaving = true
            relationshipsByTarget = [:]
        }
        try migrate(context, to: declared.map { $0.descriptor }) { toBuild in
            // A declared key path must name a stored field (not a computed property, not a property renamed by CodingKeys).
            let known = knownFields(of: context, adding: FieldTypes.of(type)?.description)
            for descriptor in toBuild { try known.check(index: descriptor.fields.map(\.path)) }
            try build(declared.filter { toBuild.contains($0.descriptor) }, of: type, context)
        }
    }

    /// Makes `descriptors` the built indexes of `context`'s entity: empties the built ones not
    /// among them, creates the missing ones empty and has `build` fill those, and records the
    /// result in the catalog. Nothing happens when they are built already.
    func migrate(_ context: EntityContext, to descriptors: [IndexDescriptor], build: ([IndexDescriptor]) throws -> Void) throws {
        guard descriptors != context.schema.indexes else { return }
        for built in context.schema.indexes where !descriptors.contains(built) {
            if let database = context.indexes[built.name] {
                try lmdb(entity: context.name) { try raw.drop(database) }
            }
            context.indexes[built.name] = nil
            store.configuration.logger.info("dropped index", metadata: ["entity": "\(context.name)", "index": "\(built.name)"])
        }
        let kept = context.schema.indexes.filter(descriptors.contains)
        let toBuild = descriptors.filter { !kept.contains($0) }
        for descriptor in toBuild {
            let name = EntitySchema.indexDatabaseName(entity: context.name, index: descriptor.name)
            let database = try lmdb(entity: context.name) {
                try raw.openDatabase(name, options: [.create, .sortedDuplicates])
            }
            guard let database else { preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database") }
            try lmdb(entity: context.name) { try raw.drop(database) }   // a leftover of an emptied index
            context.indexes[descriptor.name] = database
        }
        if !toBuild.isEmpty { try build(toBuild) }
        context.schema.indexes = descriptors
        context.needsSaving = true
    }

    /// Fills the (empty) indexes `descriptors` from the stored bytes of every record, in one pass,
    /// without a Swift type.
    func buildStored(_ descriptors: [IndexDescriptor], _ context: EntityContext) throws {
        let maintainer = StoredIndexMaintainer(self, context, only: descriptors)
        try reportingBuild(descriptors.map(\.name), context) { step in
            try lmdb(entity: context.name) {
                try raw.withCursor(context.records) { cursor in
                    var more = try cursor.first()
                    while more {
                        let key = cursor.key, bytes = cursor.value
                        try maintainer.checkUnique(bytes, primaryKey: key) { key.hex }
                        try maintainer.update(old: nil, new: bytes, primaryKey: key)
                        step()
                        more = try cursor.next()
                    }
                }
            }
        }
    }

    /// Runs an index build, reporting progress every 10,000 records and logging the result.
    private func reportingBuild(_ names: [String], _ context: EntityContext, _ body: (() -> Void) throws -> Void) throws {
        let total = try lmdb(entity: context.name) { try raw.count(in: context.records) }
        let report = store.configuration.indexBuildProgress
        var progress = IndexBuildProgress(entity: context.name, indexes: names, completed: 0, total: total)
        report?(progress)
        try body {
            progress.completed += 1
            if progress.completed % 10_000 == 0 { report?(progress) }
        }
        if progress.completed % 10_000 != 0 { report?(progress) }
        store.configuration.logger.info("built indexes", metadata: [
            "entity": "\(context.name)", "indexes": "\(names.joined(separator: " "))", "records": "\(total)",
        ])
    }

    /// Fills the (empty) indexes `definitions` from every stored record, in one pass.
    private func build<T: Record>(_ definitions: [IndexDefinition<T>], of type: T.Type, _ context: EntityContext) throws {
        let maintainer = IndexMaintainer<T>(self, context, only: definitions)
        try reportingBuild(definitions.map { $0.name }, context) { step in
            try scanStored(type, context) { primaryKey, record in
                try maintainer.checkUnique(record, primaryKey: primaryKey)
                try maintainer.update(old: nil, new: record, primaryKey: primaryKey)
                step()
            }
        }
    }
}

extension ReadTransaction {
    /// Calls `body` with every stored record of the entity and its stored primary key, in key order.
    func scanStored<T: Record>(_ type: T.Type, _ context: EntityContext, _ body: ([UInt8], T) throws -> Void) throws {
        try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in
                var more = try cursor.first()
                while more {
                    let key = cursor.key
                    let record = try decode(type, cursor.value, context) { describeStoredKey(key, of: type) }
                    try body(key, record)
                    more = try cursor.next()
                }
            }
        }
    }

    /// The record stored under the encoded primary key `storedKey`, or nil.
    func record<T: Record>(_ type: T.Type, storedKey: [UInt8], _ context: EntityContext) throws -> T? {
        guard let bytes = try lmdb(entity: context.name, { try raw.value(forKey: storedKey, in: context.records) }) else {
            return nil
        }
        return try decode(type, bytes, context) { describeStoredKey(storedKey, of: type) }
    }
}

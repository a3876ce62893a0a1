import LMDB

/// A relationship an imported object fills from a JSON member named after it.
///
/// Four forms, by which side holds the reference:
/// - `reference` (`"company": {…}`): the object holds the related record's key (to-one).
/// - `keyList` (`"ingredients": [{…}]`): the object holds a list of related keys (many-to-many).
/// - `children` (`"notes": [{…}]`): each related record holds the object's key (the inverse of a
///   to-one; the relationship is named by that to-one's `inverse`).
/// - `listedBy` (`"recipes": [{…}]`): each related record lists the object's key (the inverse of
///   a key list).
struct NestedRelationship: Sendable, Equatable {
    enum Form: Sendable, Equatable {
        case reference, keyList, children, listedBy
    }

    /// The name JSON members use (`notes` fills it, `notes_ids` links by key).
    var name: String
    var form: Form
    /// The entity of the nested objects.
    var related: String
    /// The reference field: on the importing entity for `reference` and `keyList`, on the related
    /// entity for `children` and `listedBy`.
    var keyField: String
    /// The relationship's delete rule: for `children`, what detaching a child does (cascade
    /// deletes it; nullify and deny clear its reference).
    var deleteRule: DeleteRule

    /// The importing record holds the reference (it is written after the related records).
    var isHeldByRecord: Bool { form == .reference || form == .keyList }
    /// One related record, not an array.
    var isToOne: Bool { form == .reference }

    /// The catalog's relationship as the holding entity sees it.
    init(outgoing descriptor: RelationshipDescriptor) {
        name = descriptor.name
        form = descriptor.kind == .toOne ? .reference : .keyList
        related = descriptor.target
        keyField = descriptor.keyField
        deleteRule = descriptor.deleteRule
    }

    /// The inverse of `descriptor`, held by `holder`, as its target sees it; nil when it has no
    /// inverse name, so that no JSON member can name it.
    init?(incoming descriptor: RelationshipDescriptor, holder: String) {
        guard let inverse = descriptor.inverse else { return nil }
        name = inverse
        form = descriptor.kind == .toOne ? .children : .listedBy
        related = holder
        keyField = descriptor.keyField
        deleteRule = descriptor.deleteRule
    }
}

/// The entities one import can write and how their JSON nests: every entity reachable from the
/// imported one through relationships, with its description and nested relationships. Made in
/// the import's write transaction, read by the mapping thread.
struct ImportGraph: Sendable {
    /// The description of each entity nested objects may fill.
    var descriptions: [String: EntityDescription] = [:]
    /// The relationships each entity's JSON may nest.
    var relationships: [String: [NestedRelationship]] = [:]

    /// The nested relationships of `entity`.
    func nested(of entity: String) -> [NestedRelationship] { relationships[entity] ?? [] }

    /// Why `relationship`'s related records cannot be imported, or nil when they can.
    func unavailability(of relationship: NestedRelationship) -> String? {
        guard descriptions[relationship.related] == nil else { return nil }
        return "the entity \(relationship.related) is unknown to this store; name its type in ImportOptions.related"
    }
}

extension ImportGraph {
    /// The graph of an import into `root`: `options.related` registered first (so that the
    /// catalog knows their relationships), then every entity reachable from `root` through a
    /// relationship or an inverse, with the write target of each.
    static func build(_ tx: WriteTransaction, root: ImportTarget, rootContext: EntityContext,
                      options: ImportOptions) throws -> (graph: ImportGraph, targets: [String: ImportTarget]) {
        var targets: [String: ImportTarget] = [root.description.name: root]
        for related in options.related where targets[related.name] == nil {
            let target = try related.target()
            _ = try target.context(tx)
            targets[related.name] = target
        }
        var graph = ImportGraph()
        var pending = [root.description.name]
        while let entity = pending.popLast() {
            guard graph.relationships[entity] == nil else { continue }
            var nested: [NestedRelationship] = []
            if let context = entity == root.description.name ? rootContext : try tx.context(named: entity) {
                nested += context.schema.relationships.map(NestedRelationship.init(outgoing:))
            }
            nested += try tx.incomingRelationships(of: entity).compactMap { NestedRelationship(incoming: $0.relationship, holder: $0.holder) }
            graph.relationships[entity] = nested
            if let target = targets[entity] {
                graph.descriptions[entity] = target.description
            } else if try tx.context(named: entity) != nil {
                var description = try tx.entityDescription(named: entity, sampleLimit: StoredFieldSample.lookupRecords)
                // A description inferred from stored records lacks a reference field no record set.
                for relationship in description.relationships
                where description.field(relationship.keyField) == nil && !relationship.keyField.contains(".") {
                    let keyType = targets[relationship.target].flatMap { $0.description.field($0.description.primaryKey)?.type } ?? .any
                    description.fields.append(FieldDescription(relationship.keyField, relationship.kind == .toOne ? keyType : .array(keyType),
                                                               optional: true))
                }
                targets[entity] = .existing(description)
                graph.descriptions[entity] = description
            }
            if !nested.isEmpty, let described = graph.descriptions[entity], described.hasCompoundKey {
                // References hold one key value; a compound key is several.
                throw StrataError(.invalidValue, "\(entity): an entity with a compound primary key (\(described.primaryKeyFields.joined(separator: ", "))) "
                    + "cannot have relationships (\(nested.map(\.related).joined(separator: ", ")))", entity: entity)
            }
            pending += nested.map(\.related).filter { graph.relationships[$0] == nil }
        }
        return (graph, targets)
    }
}

extension RelatedEntity {
    /// The write target of this entity.
    func target() throws -> ImportTarget {
        switch kind {
        case .record(let type): try Self.recordTarget(type)
        case .described(let description): .described(description)
        }
    }

    private static func recordTarget<T: Record>(_ type: T.Type) throws -> ImportTarget { try .record(type) }
}

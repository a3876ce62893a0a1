@_spi(Format) import StrataFormat

/// Nested JSON: members named after a relationship (``NestedRelationship``) are mapped on the
/// mapping thread into related records, ready for the writer to link and store.
///
/// - `"notes": [{…}, …]`, `"company": {…}`: related records, mapped by their own entity's
///   mapper (recursively: a note may nest its own relationships).
/// - `"notes_ids": [1, 2]`: keys of stored related records to link (inverse relationships; a
///   reference or key list the record holds takes `company_id` / `ingredients_ids` as its field).
/// - `null`: the relationship is cleared. An absent member leaves it as stored.
extension RecordMapper {
    /// A relationship member of a mapped record.
    struct RelatedValue: Sendable {
        /// The relationship's index in ``nestedRelationships``.
        var relationship: Int
        /// The JSON key, for messages.
        var key: String
        var content: Content

        enum Content: Sendable {
            case null
            /// Nested objects, mapped (one for a to-one reference).
            case records([Mapped])
            /// Keys of stored records to link.
            case keys([RelatedKey])
        }
    }

    /// The key of a related record: encoded as the records database orders it, and as the CBOR
    /// a reference field stores.
    struct RelatedKey: Sendable {
        var key: [UInt8]
        var value: [UInt8]
        var text: String
    }

    /// How a JSON key that fills no field may name a relationship member: `memberCode` values
    /// below -1 are relationship members (see ``relationshipMember(_:)``).
    static func memberTable(_ relationships: [NestedRelationship]) -> [String: Int] {
        var table: [String: Int] = [:]
        for (index, relationship) in relationships.enumerated() {
            let name = KeyMapping.normalize(relationship.name)
            if table[name] == nil { table[name] = -2 - 2 * index }
            if !relationship.isHeldByRecord, table[name + "ids"] == nil { table[name + "ids"] = -3 - 2 * index }
        }
        return table
    }

    /// The field aliases of relationships the record holds: `company_id` and `ingredients_ids`
    /// fill the reference field, whatever it is named.
    static func referenceAliases(_ relationships: [NestedRelationship]) -> [String: String] {
        var aliases: [String: String] = [:]
        for relationship in relationships where relationship.isHeldByRecord && !relationship.keyField.contains(".") {
            aliases[KeyMapping.normalize(relationship.name) + (relationship.isToOne ? "id" : "ids")] = relationship.keyField
        }
        return aliases
    }

    /// The relationship index and whether the member lists keys, for a member code below -1.
    @inline(__always)
    static func relationshipMember(_ code: Int) -> (relationship: Int, isKeyList: Bool) {
        let member = -2 - code
        return (member / 2, member % 2 == 1)
    }

    /// What a JSON key fills: a field index (≥ 0), nothing (-1), or a relationship member (< -1).
    func memberCode(for key: String) -> Int {
        if let field = mapping.field(for: key) { return field }
        guard !relationshipMembers.isEmpty else { return -1 }
        return relationshipMembers[KeyMapping.normalize(key)] ?? -1
    }

    /// Keeps a relationship member's value for ``relatedValues(maximumKeySize:)`` (the last of
    /// duplicate keys wins).
    func choose(relationshipMember code: Int, key: String, value: JSONValue) {
        let (relationship, isKeyList) = Self.relationshipMember(code)
        chosenRelated[relationship] = (key, value, isKeyList)
    }

    /// Clears the relationship members kept for the previous record.
    func resetRelated() {
        for index in chosenRelated.indices { chosenRelated[index] = nil }
    }

    /// The mapped relationship members of the record just read, in relationship order. Throws
    /// ``ConversionFailure`` naming the JSON key and element.
    func relatedValues(maximumKeySize: Int) throws -> [RelatedValue] {
        var values: [RelatedValue] = []
        for index in chosenRelated.indices {
            guard let (key, value, isKeyList) = chosenRelated[index] else { continue }
            let relationship = nestedRelationships[index]
            if case .null = value {
                values.append(RelatedValue(relationship: index, key: key, content: .null))
                continue
            }
            if let reason = graph.unavailability(of: relationship) {
                throw ConversionFailure(message: "'\(key)': \(reason)")
            }
            let mapper = childMapper(index)
            if isKeyList {
                guard case .array(let elements) = value else {
                    throw ConversionFailure(message: "'\(key)' is \(value.kind), expected an array of \(relationship.related) keys")
                }
                let keys = try elements.enumerated().map { position, element in
                    try mapper.relatedKey(element, place: "'\(key)' element \(position)", maximumKeySize: maximumKeySize)
                }
                values.append(RelatedValue(relationship: index, key: key, content: .keys(keys)))
                continue
            }
            let objects: [(JSONValue, String)]
            if relationship.isToOne {
                objects = [(value, "'\(key)'")]
            } else {
                guard case .array(let elements) = value else {
                    throw ConversionFailure(message: "'\(key)' is \(value.kind), expected an array of \(relationship.related) objects")
                }
                objects = elements.enumerated().map { ($1, "'\(key)' element \($0)") }
            }
            var records: [Mapped] = []
            records.reserveCapacity(objects.count)
            for (object, place) in objects {
                guard case .object = object else {
                    let hint = relationship.isHeldByRecord ? "" : " (link stored records by key with '\(relationship.name)_ids')"
                    throw ConversionFailure(message: "\(place) is \(object.kind), expected a \(relationship.related) object\(hint)")
                }
                do {
                    records.append(try mapper.map(object, maximumKeySize: maximumKeySize))
                } catch let failure as ConversionFailure {
                    throw ConversionFailure(message: "\(place): \(failure.message)")
                }
            }
            values.append(RelatedValue(relationship: index, key: key, content: .records(records)))
        }
        return values
    }

    /// The mapper of the related entity of relationship `index`, made on first use.
    private func childMapper(_ index: Int) -> RecordMapper {
        if let mapper = childMappers[index] { return mapper }
        let relationship = nestedRelationships[index]
        // Only called once `unavailability(of:)` said the description is there.
        let mapper = RecordMapper(description: graph.descriptions[relationship.related]!, options: options, graph: graph)
        childMappers[index] = mapper
        return mapper
    }

    /// `value` as a key of this mapper's entity. `place` names it in messages.
    func relatedKey(_ value: JSONValue, place: String, maximumKeySize: Int) throws -> RelatedKey {
        let field = description.fields[primaryKeyIndex]
        guard let queryValue = primaryKeyValue(value), let key = PrimaryKeyEncoder.encode(queryValue, kind: primaryKeyKind) else {
            throw ConversionFailure(message: "\(place) is \(value), which is not a \(description.name) key")
        }
        guard key.count <= maximumKeySize else {
            throw ConversionFailure(message: "\(place): the key encodes to \(key.count) bytes; LMDB keys are limited to \(maximumKeySize)")
        }
        var writer = CBORWriter(capacity: 16)
        do {
            try converter.write(value, as: field.type, dateFormat: field.dateFormat, path: field.name, into: &writer,
                                owner: (mapping, primaryKeyIndex))
        } catch let failure as ConversionFailure {
            throw ConversionFailure(message: "\(place) " + failure.message)
        }
        let text: String = if case .string(let string) = value { string } else { value.jsonText }
        return RelatedKey(key: key, value: writer.bytes, text: text)
    }

    /// The JSON keys no field or relationship took, in this mapper and the mappers of nested
    /// objects (as `notes.color`).
    var allIgnoredKeys: [String: Int] {
        var all = ignoredKeys
        for (index, child) in childMappers.enumerated() {
            guard let child else { continue }
            for (key, count) in child.allIgnoredKeys { all[nestedRelationships[index].name + "." + key, default: 0] += count }
        }
        return all
    }
}

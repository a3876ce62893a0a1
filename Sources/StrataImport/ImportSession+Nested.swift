@_spi(Format) import StrataFormat
import LMDB

/// Writing nested JSON: related records are upserted by their own primary keys and linked.
///
/// - A relationship the record holds (`company`, `ingredients`): the related records are written
///   first and their keys fill the reference field; an array is the new key list, `null` clears
///   it (a key list becomes empty).
/// - A relationship held by the related records (`notes`, whose notes hold the user's key; or
///   `recipes`, whose recipes list the ingredient's key): the record is written first, then each
///   related record, given the record's key. Keys (`notes_ids`) link stored records, which must
///   exist. In sync mode the related records the array lacks are detached: deleted when the
///   relationship's delete rule is cascade, their reference cleared otherwise; `null` detaches
///   all of them in every mode. Upsert mode only adds and updates.
extension ImportSession {
    /// The writer of entity `name`.
    func writer(for name: String) throws -> EntityWriter {
        if let writer = writers[name] { return writer }
        guard let target = targets[name] else {
            throw StrataError(.invalidValue, "the import cannot write \(name): name its type in ImportOptions.related", entity: name)
        }
        let writer = try EntityWriter(tx, target, options)
        writers[name] = writer
        return writer
    }

    /// Writes `mapped` into `writer`'s entity with the related records nested in it: first the
    /// records it refers to (their keys fill its reference fields), then itself, then the
    /// records that refer to it.
    func writeWithRelated(_ mapped: inout RecordMapper.Mapped, _ writer: EntityWriter) throws -> EntityWriter.Outcome {
        let relationships = graph.nested(of: writer.name)
        // Taken out of the record, so that the nested records are changed in place, not copied.
        var related = mapped.related
        mapped.related = []
        for index in related.indices where relationships[related[index].relationship].isHeldByRecord {
            try fillReference(&related[index], relationships[related[index].relationship], of: &mapped, writer)
        }
        let outcome = try writer.store(mapped)
        for index in related.indices where !relationships[related[index].relationship].isHeldByRecord {
            try linkReferring(&related[index], relationships[related[index].relationship], to: mapped, writer)
        }
        return outcome
    }

    /// Writes a related record (with its own related records) and counts it.
    private func writeRelated(_ mapped: inout RecordMapper.Mapped, _ writer: EntityWriter) throws {
        writer.counts.count(mapped.related.isEmpty ? try writer.store(mapped) : try writeWithRelated(&mapped, writer))
    }

    /// The nested records of `value`, taken out of it (nil when it holds none), so that they are
    /// uniquely referenced and change in place.
    private func takeRecords(_ value: inout RecordMapper.RelatedValue) -> [RecordMapper.Mapped]? {
        guard case .records(let records) = value.content else { return nil }
        value.content = .null
        return records
    }

    /// Writes the records of a relationship `mapped` holds and puts their keys in its reference
    /// field.
    private func fillReference(_ value: inout RecordMapper.RelatedValue, _ relationship: NestedRelationship,
                               of mapped: inout RecordMapper.Mapped, _ writer: EntityWriter) throws {
        guard let field = writer.fieldIndex(relationship.keyField) else {
            throw ConversionFailure(message: "'\(value.key)': \(writer.name) has no top-level field '\(relationship.keyField)' to hold the reference")
        }
        var reference = CBORWriter(capacity: 16)
        if var records = takeRecords(&value) {
            let related = try self.writer(for: relationship.related)
            if !relationship.isToOne { reference.writeHead(.array, UInt64(records.count)) }
            for index in records.indices {
                try writeRelated(&records[index], related)
                reference.bytes += related.keyValue(of: records[index])
            }
        } else if case .keys(let keys) = value.content {
            if !relationship.isToOne { reference.writeHead(.array, UInt64(keys.count)) }
            for key in keys { reference.bytes += key.value }
        } else {
            guard !relationship.isToOne else {
                mapped.slots[field] = .null
                return
            }
            reference.writeHead(.array, 0)
        }
        let start = mapped.values.count
        mapped.values += reference.bytes
        mapped.slots[field] = .value(start..<mapped.values.count)
    }

    /// Writes or links the records that refer to `parent` through `relationship`, and in a sync
    /// (or for `null`) detaches those the payload lacks.
    private func linkReferring(_ value: inout RecordMapper.RelatedValue, _ relationship: NestedRelationship,
                               to parent: RecordMapper.Mapped, _ writer: EntityWriter) throws {
        let related = try self.writer(for: relationship.related)
        let kind: RelationshipDescriptor.Kind = relationship.form == .children ? .toOne : .keyList
        let parentKey = writer.keyValue(of: parent)
        var position = 0
        let parentValue = try OrderedKey.queryValue(from: parent.primaryKey, at: &position)
        let edit: WriteTransaction.ReferenceEdit = kind == .toOne ? .set(Array(parentKey)) : .add(parentValue, Array(parentKey))
        let detachesMissing: Bool
        if case .null = value.content { detachesMissing = true } else { detachesMissing = options.mode.deletesMissing && options.deletesMissing }
        // The keys the payload gives, which a detaching pass keeps.
        var linked = Set<[UInt8]>()
        if var records = takeRecords(&value) {
            let field = related.fieldIndex(relationship.keyField)
            for index in records.indices {
                if kind == .toOne {
                    guard let field else {
                        throw ConversionFailure(message: "'\(value.key)': \(related.name) has no top-level field '\(relationship.keyField)' to hold the reference")
                    }
                    let start = records[index].values.count
                    records[index].values += parentKey
                    records[index].slots[field] = .value(start..<records[index].values.count)
                }
                try writeRelated(&records[index], related)
                if kind == .keyList, try tx.editReference(relationship.keyField, kind: kind, of: records[index].primaryKey, related.context, edit) {
                    related.counts.linked += 1
                }
                if detachesMissing { linked.insert(records[index].primaryKey) }
            }
        } else if case .keys(let keys) = value.content {
            for key in keys {
                guard try tx.hasRecord(forKey: key.key, related.context) else {
                    throw StrataError(.notFound, "'\(value.key)' links \(related.name) \(key.text), which is not stored",
                                      entity: related.name, key: key.text)
                }
                if try tx.editReference(relationship.keyField, kind: kind, of: key.key, related.context, edit) { related.counts.linked += 1 }
                if detachesMissing { linked.insert(key.key) }
            }
        }
        guard detachesMissing else { return }
        let comparison = FieldComparison(field: FieldPath.components(of: relationship.keyField), op: .equal, value: parentValue,
                                         quantifier: kind == .keyList ? .any : nil)
        let referring = try QueryRequest<StoredRecord>(transaction: tx, entity: related.name)
            .filtered(by: .comparison(comparison)).storedKeys()
        for key in referring where !linked.contains(key) {
            if kind == .toOne, relationship.deleteRule == .cascade {
                var deleting = Set<[UInt8]>()
                if try tx.deleteStoredRecord(key, related.context, deleting: &deleting) { related.counts.deleted += 1 }
            } else if try tx.editReference(relationship.keyField, kind: kind, of: key, related.context, .remove(parentValue)) {
                related.counts.unlinked += 1
            }
        }
    }
}

extension EntityWriter {
    /// The CBOR of `mapped`'s primary key field, as a reference field stores it.
    func keyValue(of mapped: RecordMapper.Mapped) -> ArraySlice<UInt8> {
        guard case .value(let range) = mapped.slots[primaryKeyIndex] else { return [] }
        return mapped.values[range]
    }
}

/// What an import did to the records of one related entity (``ImportReport/related``).
public struct RelatedImportCounts: Sendable, Equatable, CustomStringConvertible {
    /// Related records the payload added.
    public var inserted = 0
    /// Stored related records whose bytes changed.
    public var updated = 0
    /// Related records the payload held exactly as stored.
    public var unchanged = 0
    /// Records deleted because a sync's payload no longer nests them (cascade delete rule).
    public var deleted = 0
    /// Stored records newly linked by key (`notes_ids`), or newly listing the record.
    public var linked = 0
    /// Records whose reference was cleared because a sync's payload no longer nests them.
    public var unlinked = 0
    /// Left alone because the options turned inserts or updates off.
    public var notInserted = 0, notUpdated = 0

    /// All counts zero.
    public init() {}

    mutating func add(_ other: RelatedImportCounts) {
        inserted += other.inserted
        updated += other.updated
        unchanged += other.unchanged
        deleted += other.deleted
        linked += other.linked
        unlinked += other.unlinked
        notInserted += other.notInserted
        notUpdated += other.notUpdated
    }

    mutating func count(_ outcome: EntityWriter.Outcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        case .notInserted: notInserted += 1
        case .notUpdated: notUpdated += 1
        }
    }

    public var description: String {
        var parts = ["inserted \(ImportReport.grouped(inserted))", "updated \(ImportReport.grouped(updated))",
                     "unchanged \(ImportReport.grouped(unchanged))"]
        if deleted > 0 { parts.append("deleted \(ImportReport.grouped(deleted))") }
        if linked > 0 { parts.append("linked \(ImportReport.grouped(linked))") }
        if unlinked > 0 { parts.append("unlinked \(ImportReport.grouped(unlinked))") }
        if notInserted + notUpdated > 0 { parts.append("left alone: \(notInserted) new, \(notUpdated) changed") }
        return parts.joined(separator: ", ")
    }
}

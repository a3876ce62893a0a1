import LMDB

/// The outcome of checking an entity's indexes against its records.
public struct IndexVerification: Sendable, Equatable {
    /// The entity checked.
    public var entity: String
    /// The records read and checked.
    public var recordsChecked = 0
    /// Index entries the records call for, over all indexes.
    public var entriesExpected = 0
    /// What does not match, one sentence each (the first 100).
    public var problems: [String] = []

    /// True when no problem was found.
    public var isConsistent: Bool { problems.isEmpty }
}

extension ReadTransaction {
    /// Checks that every record of `entity` decodes (its key, its CBOR, its field ids) and that
    /// every index holds exactly the entries the records call for: each record's keys are present
    /// with its primary key, and no index holds more entries than that; and that every full-text
    /// index holds exactly the records' documents and terms (one expected entry per document). What `strata verify` runs.
    /// Keys are computed from the stored bytes (`IndexKey.keys(of:_:)`), for indexes whose
    /// fields have standard key encodings; others are reported as not checked.
    ///
    /// Reads every record once; memory does not grow with the entity.
    /// `progress`, when given, is called every 10,000 records with the records checked so far.
    public func verifyIndexes(entity: String, progress: ((Int) -> Void)? = nil) throws -> IndexVerification {
        var result = IndexVerification(entity: entity)
        guard let context = try context(named: entity) else {
            throw StrataError(.notFound, "the store has no entity '\(entity)'", entity: entity)
        }
        func problem(_ text: String) { if result.problems.count < 100 { result.problems.append(text) } }
        let checked = context.schema.indexes.filter { descriptor in
            guard descriptor.hasStandardKeys else {
                problem("index '\(descriptor.name)' not checked: a field's values have a custom key encoding")
                return false
            }
            if descriptor.hasStaleFolding {
                problem("index '\(descriptor.name)' was folded by the folding rules of version \(descriptor.foldingVersion ?? 1), "
                        + "not by those of this version of Strata (\(Collation.rulesVersion)): queries do not use it, and the next write to \(entity) rebuilds it")
                return false
            }
            guard context.indexes[descriptor.name] != nil else {
                problem("index '\(descriptor.name)' is listed in the catalog but has no database")
                return false
            }
            return true
        }
        var expected = [String: Int]()
        let selection = FieldSelection(names: Array(Set(checked.flatMap { $0.fields.map { $0.path[0] } })), fields: context.schema.fields)
        var offsets: [Int] = []
        try forEachStoredRecord(context) { key, bytes in
            result.recordsChecked += 1
            if result.recordsChecked % 10_000 == 0 { progress?(result.recordsChecked) }
            let fields: StoredFieldValues
            do {
                // The whole record, not only the indexed fields: every value must decode.
                _ = try StoredRecord(key: key, bytes: bytes, fields: context.schema.fields, entity: entity)
                fields = try selection.values(of: bytes, reusing: &offsets)
            } catch {
                problem("the record with primary key \(describeStoredKey(key)) does not decode: \((error as? StrataError)?.message ?? "\(error)")")
                return true
            }
            for descriptor in checked {
                guard let database = context.indexes[descriptor.name] else { continue }
                for fullKey in Set(IndexKey.keys(of: fields, descriptor).map(IndexKey.stored)) {
                    expected[descriptor.name, default: 0] += 1
                    if try !hasIndexEntry(fullKey, primaryKey: key, in: database, entity: entity) {
                        problem("index '\(descriptor.name)' lacks the entry of the record with primary key \(describeStoredKey(key))")
                    }
                }
            }
            return true
        }
        result.entriesExpected += try verifyTextIndexes(context, problem: problem)
        for descriptor in checked {
            guard let database = context.indexes[descriptor.name] else { continue }
            let entries = try entryCount(of: database, entity: entity)
            let wanted = expected[descriptor.name] ?? 0
            result.entriesExpected += wanted
            if entries != wanted {
                problem("index '\(descriptor.name)' holds \(entries) entries; the records call for \(wanted)")
            }
        }
        return result
    }
}

extension [UInt8] {
    /// Lowercase hexadecimal, for messages.
    package var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

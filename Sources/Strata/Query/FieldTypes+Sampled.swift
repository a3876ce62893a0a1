import LMDB

extension ReadTransaction {
    /// The field types conditions on `context`'s entity are checked against, by the top-level
    /// query of an untyped request and by a relationship's related query alike: the description
    /// the entity was imported with, else the kinds of its stored values
    /// (``FieldTypes/sampled(_:in:limit:)``). The sample is read once per transaction and kept
    /// in the context, read again when the entity's record or field count has changed since (a
    /// write in this transaction); nil when nothing is known, and then nothing is checked.
    func fieldTypes(of context: EntityContext) -> FieldTypes? {
        if let description = context.schema.description { return FieldTypes(description) }
        guard let records = try? recordCount(context) else { return nil }
        let fields = context.schema.fields.names.count
        if let kept = context.sampledFieldTypes, kept.records == records, kept.fields == fields { return kept.types }
        let types = records == 0 ? nil : FieldTypes.sampled(context, in: self)
        context.sampledFieldTypes = SampledFieldTypes(records: records, fields: fields, types: types)
        return types
    }
}

/// The field types sampled from an entity's stored records, with the record and field counts
/// they were read at (kept in its ``EntityContext`` for one transaction).
struct SampledFieldTypes {
    let records: Int
    let fields: Int
    let types: FieldTypes?
}

extension FieldTypes {
    /// Field types read from the first `limit` stored records of an entity whose catalog holds no
    /// description (one written only by Swift types, queried without its type, as the tool does).
    ///
    /// Each field is typed by the kind of its stored values (CBOR's own kinds: text, integer,
    /// float, boolean, date, UUID, bytes, arrays of those), so a string field whose values look
    /// like dates is still a string. A field no sampled record holds, one whose values differ in
    /// kind (merged as schema inference merges them: integers beside floats are numbers, other
    /// mixtures `any`) and embedded objects are unchecked: sampling can leave a comparison
    /// unchecked, never refuse a valid one.
    static func sampled(_ context: EntityContext, in transaction: ReadTransaction, limit: Int = 64) -> FieldTypes? {
        let names = context.schema.fields.names.sorted { $0.key < $1.key }.map(\.value)
        guard !names.isEmpty else { return nil }
        let selection = FieldSelection(names: names, fields: context.schema.fields)
        var kinds: [String: FieldType] = [:]
        var offsets: [Int] = []
        do {
            try transaction.lmdb(entity: context.name) {
                try transaction.withCursor(context.records) { cursor in
                    var more = try cursor.first(), sampled = 0
                    while more, sampled < limit {
                        let values = try selection.values(of: cursor.value, reusing: &offsets)
                        for name in names {
                            guard let value = values.value(at: [name]), let kind = Self.kind(of: value) else { continue }
                            kinds[name] = kinds[name].map { InferredField.merge($0, kind) } ?? kind
                        }
                        sampled += 1
                        more = try cursor.next()
                    }
                }
            }
        } catch {
            return nil   // unreadable records: the query itself will say so
        }
        let fields = names.map { FieldDescription($0, kinds[$0] ?? .any, optional: true) }
        return FieldTypes(EntityDescription(name: context.name, primaryKey: context.schema.primaryKey, fields: fields))
    }

    /// The field type of one stored value; nil for null (it says nothing).
    private static func kind(of value: QueryValue) -> FieldType? {
        switch value {
        case .null: nil
        case .bool: .bool
        case .int, .uint, .wideInt: .integer
        case .double: .double
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .data: .data
        case .list(let elements):
            .array(elements.compactMap(kind(of:)).reduce(nil as FieldType?) { found, next in found.map { InferredField.merge($0, next) } ?? next } ?? .any)
        }
    }
}

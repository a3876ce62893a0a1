import LMDB

extension ReadTransaction {
    /// The field types conditions on `context`'s entity are checked against, by the top-level
    /// query of an untyped request and by a relationship's related query alike: the description
    /// the entity was imported with, else the kinds of its stored values
    /// (``FieldTypes/sampled(_:in:)``). The sample is read once per transaction and kept
    /// in the context, read again when the entity's record or field count has changed since (a
    /// write in this transaction); nil when nothing is known, and then nothing is checked.
    package func fieldTypes(of context: EntityContext) -> FieldTypes? {
        if let description = context.schema.description { return FieldTypes(description) }
        guard let records = try? recordCount(context) else { return nil }
        let fields = context.schema.fields.names.count
        if let kept = context.sampledDescription, kept.records == records, kept.fields == fields { return kept.description.map(FieldTypes.init) }
        let types = records == 0 ? nil : FieldTypes.sampled(context, in: self)
        context.sampledDescription = SampledDescription(records: records, fields: fields, description: types?.description)
        return types
    }
}

extension FieldTypes {
    /// Field types read from the first ``StoredFieldSample/typeCheckRecords`` stored records of an
    /// entity whose catalog holds no description (one written only by Swift types, queried without
    /// its type, as the tool does), by the one sampler of stored field types (``StoredFieldSample``).
    ///
    /// Each field is typed by the CBOR kind of its stored values, so a string field whose values
    /// look like dates is still a string. A field no sampled record holds, one whose values differ
    /// in kind (merged as schema inference merges them: integers beside floats are numbers, other
    /// mixtures `any`) and embedded objects are unchecked: sampling can leave a comparison
    /// unchecked, never refuse a valid one. Nil when nothing can be sampled (no field, or a record
    /// that does not decode: the query itself will say so).
    package static func sampled(_ context: EntityContext, in transaction: ReadTransaction) -> FieldTypes? {
        let names = context.schema.fields.names.sorted { $0.key < $1.key }.map(\.value)
        guard !names.isEmpty,
              let sample = try? StoredFieldSample(context, in: transaction, records: StoredFieldSample.typeCheckRecords) else { return nil }
        let fields = names.map { FieldDescription($0, sample.fields[$0]?.type ?? .any, optional: true) }
        return FieldTypes(EntityDescription(name: context.name, primaryKey: context.schema.primaryKey, fields: fields))
    }
}

/// Read access to one record's field values by stored path, so the evaluator does not depend on how
/// records are stored (decoded structs, raw CBOR, test dictionaries).
package protocol FieldValues {
    /// The value at `path` (`["address", "city"]`), nil when the field is absent, which predicates
    /// treat like null. Array fields are ``QueryValue/list(_:)``.
    func value(at path: [String]) -> QueryValue?
}

extension ValueKind {
    /// The kind of a Swift type, looking through `Optional` (``ScalarType``'s table).
    package init(_ type: Any.Type) {
        self = ScalarType.swiftType(type)?.scalar.keyKind ?? .other
    }

    /// The index value kind of a described field type.
    package init(_ type: FieldType) {
        self = type.scalar?.keyKind ?? .other
    }
}

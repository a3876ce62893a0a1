extension EntityDescription {
    /// How deeply field types may nest (arrays of arrays, objects in objects), as the JSON and
    /// predicate parsers cap their nesting: deeper types cost time and memory quadratic in the
    /// depth wherever a type is copied, compared or printed.
    public static let maximumTypeDepth = 64

    /// Throws `.invalidValue` for a name with a control character (the entity's, a field's at any
    /// depth, a relationship's) or a field type nested deeper than ``maximumTypeDepth``: names
    /// are printed on terminals and in messages, where a newline or an escape would mislead.
    func validateNamesAndDepth() throws(StrataError) {
        func invalid(_ message: String, field: String? = nil) -> StrataError {
            StrataError(.invalidValue, "entity description '\(Self.visible(name))': \(message)", entity: name, field: field)
        }
        if let scalar = Self.controlCharacter(in: name) {
            throw invalid("the entity name \(Self.visible(name)) has the control character U+\(Self.hex(scalar)); names are printable text")
        }
        for relationship in relationships {
            if let scalar = Self.controlCharacter(in: relationship.name) {
                throw invalid("the relationship name \(Self.visible(relationship.name)) has the control character U+\(Self.hex(scalar))")
            }
        }
        for field in fields {
            if let (path, scalar) = Self.controlCharacter(in: field, path: "") {
                throw invalid("the field name \(Self.visible(path)) has the control character U+\(Self.hex(scalar)); names are printable text", field: field.name)
            }
            if field.type.exceedsDepth(Self.maximumTypeDepth) {
                throw invalid("the type of the field '\(Self.visible(field.name))' is nested more than \(Self.maximumTypeDepth) levels deep", field: field.name)
            }
        }
    }

    /// The first control character of `text` (C0, DEL or C1).
    static func controlCharacter(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    private static func controlCharacter(in field: FieldDescription, path: String) -> (String, Unicode.Scalar)? {
        let path = path.isEmpty ? field.name : path + "." + field.name
        if let scalar = controlCharacter(in: field.name) { return (path, scalar) }
        var type = field.type
        var depth = 0
        while case .array(let element) = type, depth <= maximumTypeDepth { type = element; depth += 1 }
        guard case .object(let nested) = type, path.count < 64 * 1024 else { return nil }
        for child in nested { if let found = controlCharacter(in: child, path: path) { return found } }
        return nil
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A name quoted with its control characters escaped, for messages.
    static func visible(_ name: String) -> String {
        guard controlCharacter(in: name) != nil else { return name }
        return name.debugDescription
    }
}

extension FieldType {
    /// Whether arrays and objects nest more than `limit` levels below this type; looks no deeper
    /// than that, so a type nested a million levels costs no more than one at the limit.
    func exceedsDepth(_ limit: Int) -> Bool {
        guard limit >= 0 else { return true }
        switch self {
        case .array(let element): return element.exceedsDepth(limit - 1)
        case .object(let fields): return fields.contains { $0.type.exceedsDepth(limit - 1) }
        default: return false
        }
    }
}

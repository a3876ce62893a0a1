extension EntityDescription {
    /// How deeply field types may nest (arrays of arrays, objects in objects), as the JSON and
    /// predicate parsers cap their nesting: deeper types cost time and memory quadratic in the
    /// depth wherever a type is copied, compared or printed.
    public static let maximumTypeDepth = 64

    /// Throws `.invalidValue` for a name with a control character (the entity's, a field's at any
    /// depth, a relationship's) or a field type nested deeper than ``maximumTypeDepth``: names
    /// are printed on terminals and in messages, where a newline or an escape would mislead.
    package func validateNamesAndDepth() throws(StrataError) {
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
    package static func controlCharacter(in text: String) -> Unicode.Scalar? {
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

    package static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A name quoted with its control characters escaped, for messages.
    package static func visible(_ name: String) -> String {
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

extension EntityDescription {
    /// The most bytes a default may take stored (``FieldDescription/defaultValue``, a record
    /// type's ``Record/defaults``, ``WriteTransaction/addField(_:to:default:)``): 1 KiB.
    ///
    /// Every record that lacks the field gets its own copy, all in one write transaction, and LMDB
    /// keeps a write transaction's changed pages in memory until it commits. A default small enough
    /// for records to stay on ordinary pages keeps that memory within LMDB's bound on a
    /// transaction's dirty pages (it writes the rest out early); a larger one makes every record
    /// an overflow page of its own, each a separate allocation LMDB keeps until the commit: a 1 MB
    /// default on 2,000 records took 2.1 GB of memory and a 2.1 GB file. A larger value belongs in
    /// the records themselves (an import, or ``WriteTransaction/addField(_:to:backfill:)``).
    public static let maximumDefaultSize = 1 << 10

    /// Throws `.invalidValue` for a default whose stored bytes pass ``maximumDefaultSize``.
    package static func checkDefaultSize(_ bytes: [UInt8], entity: String, field: String) throws(StrataError) {
        guard bytes.count > maximumDefaultSize else { return }
        throw StrataError(.invalidValue,
            "\(visible(entity)): the default of the field '\(visible(field))' takes \(bytes.count) bytes stored; a default can take at most \(maximumDefaultSize) (every record that lacks the field gets a copy in one transaction); write larger values into the records",
            entity: entity, field: field)
    }

    /// Throws `.invalidValue` when `name` cannot be a new top-level field's name in `entity`:
    /// empty, holding a dot (predicates, orderings, indexes and defaults name fields by dotted
    /// paths, so nothing could name it) or a control character (names are printed).
    package static func checkFieldName(_ name: String, entity: String) throws(StrataError) {
        func invalid(_ why: String) -> StrataError {
            StrataError(.invalidValue, "\(visible(entity)): '\(visible(name))' cannot be a field name: \(why)",
                        entity: entity, field: name)
        }
        if name.isEmpty { throw invalid("it is empty") }
        if let scalar = controlCharacter(in: name) { throw invalid("it has the control character U+\(hex(scalar)); names are printable text") }
        if name.contains(".") { throw invalid("it has a '.', which separates the parts of a field path, so no query or index could name the field") }
    }

    /// Throws `.invalidValue` when `name` cannot be an entity's name: empty, with a '/' or a
    /// control character.
    package static func checkEntityName(_ name: String) throws(StrataError) {
        guard !name.isEmpty, !name.contains("/") else {
            throw StrataError(.invalidValue, "the entity name '\(visible(name))' must be non-empty and contain no '/'", entity: name)
        }
        if let scalar = controlCharacter(in: name) {
            throw StrataError(.invalidValue, "the entity name \(visible(name)) has the control character U+\(hex(scalar)); names are printable text", entity: name)
        }
    }
}

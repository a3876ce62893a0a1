/// The value a record type's field takes in records stored before the field existed:
/// `FieldDefault(\User.tags, [])`. Declared in ``Record/defaults``.
///
/// ```swift
/// struct User: Record {
///     var id: Int64
///     var name: String
///     var tags: [String]
///     var plan: String
///     static let primaryKey = \User.id
///     static let defaults: [FieldDefault<User>] = [
///         FieldDefault(\.tags, []),
///         FieldDefault(\.plan, "free"),
///     ]
/// }
/// ```
///
/// Why a static list of key paths and values, rather than a property wrapper or Swift's own
/// `var tags: [String] = []`: synthesized `Codable` never sees an initial value, and a property
/// wrapper would change the field's type and its coding for every program that reads the store.
/// A key path keeps the field's name checked by the compiler and the value checked against the
/// field's type; being static, the list is known before any record is read, so the store can
/// record it in its catalog and fill old records at the type's first write, as it builds a newly
/// declared index.
///
/// A default applies to a non-optional top-level field: a nil optional is not stored, so a
/// default for one could never be told apart from a nil. Such a declaration, a nested key path or
/// a value that cannot be stored fails the type's first write with `.invalidValue`.
public struct FieldDefault<Root>: Sendable {
    /// The stored name of the field.
    public let field: String
    /// The value's stored bytes, or why it cannot be a default.
    let stored: Result<[UInt8], StrataError>

    /// The default `value` for the field at `keyPath`.
    public init<Value: Encodable>(_ keyPath: KeyPath<Root, Value>, _ value: Value) {
        let path = FieldPath.components(of: keyPath)
        let entity = String(describing: Root.self)
        field = path.joined(separator: ".")
        if path.count != 1 {
            stored = .failure(StrataError(.invalidValue,
                "\(entity): a default names the nested field '\(field)'; defaults apply to top-level fields", entity: entity, field: field))
        } else if Value.self is any OptionalValueType.Type {
            stored = .failure(StrataError(.invalidValue,
                "\(entity): a default for the optional field '\(field)': a nil optional is not stored, so old records read as nil already; make the field non-optional to give it a default",
                entity: entity, field: field))
        } else {
            do throws(StrataError) { stored = .success(try SingleFieldCoding.bytes(of: value, entity: entity, field: field)) } catch {
                stored = .failure(error)
            }
        }
    }
}

/// `Optional`, whatever it wraps: a default cannot be declared for one.
protocol OptionalValueType {}
extension Optional: OptionalValueType {}

extension Record {
    /// The stored bytes of ``Record/defaults`` by field name; throws `.invalidValue` for a declaration
    /// that cannot be one.
    package static func storedDefaults() throws(StrataError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for declaration in defaults {
            switch declaration.stored {
            case .success(let bytes):
                guard result.updateValue(bytes, forKey: declaration.field) == nil else {
                    throw StrataError(.invalidValue, "\(entityName): two defaults for the field '\(declaration.field)'",
                                      entity: entityName, field: declaration.field)
                }
            case .failure(var error):
                error.entity = entityName
                throw error
            }
        }
        return result
    }
}

import Foundation

// The operands of `#Predicate`: the record variable, key paths on it, constants and the optional
// forms around them.
//
// ```swift
// #Predicate<Person> { $0.address.city == "Paris" }           // address.city == "Paris"
// #Predicate<Person> { $0.home?.city == "Paris" }             // home.city == "Paris"
// #Predicate<KernUser> { $0.luckyNumber! > 5 }                 // luckyNumber > 5
// #Predicate<KernUser> { $0.luckyNumber == nil }               // luckyNumber == nil
// #Predicate<KernUser> { $0.luckyNumber.flatMap { $0 > 5 } ?? false }
// ```
//
// Key paths are named as ``FieldPath/components(of:)`` names them, so records must store their
// properties under their own names. A key path into a value that is not a record (`$0.name.count`,
// `$0.tags.first`, `$0.date.timeIntervalSince1970`) names no stored field and is refused.

extension PredicateExpressions.Variable: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        try conversion.node(ofVariable: key)
    }
}

extension PredicateExpressions.KeyPath: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        let base = try conversion.node(of: root)
        let rootType = type(of: keyPath as AnyKeyPath).rootType
        if case .field(_, _, nil) = base, rootType is any QueryValueConvertible.Type || rootType is any Collection.Type {
            throw PredicateConversion.unsupported(self, "\(keyPath) reads a property of \(rootType), not a stored field")
        }
        guard let components = FieldPath.components(ofAny: keyPath) else {
            throw PredicateConversion.unsupported(self, "key path \(keyPath) does not name stored properties")
        }
        switch base {
        case .root:
            return .field(path: components, type: Output.self, quantifier: nil)
        case .field(let path, _, nil):
            return .field(path: path + components, type: Output.self, quantifier: nil)
        case .field(let path, _, .some):
            throw PredicateConversion.unsupported(
                self, "property '\(components.joined(separator: "."))' of an element of '\(path.joined(separator: "."))'")
        default:
            throw PredicateConversion.unsupported(self, "key path \(keyPath) on something other than the record")
        }
    }
}

extension PredicateExpressions.Value: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        guard let converted = PredicateConversion.queryValue(of: value) else {
            throw PredicateConversion.unsupported(self, "a constant of type \(Output.self) (not QueryValueConvertible)")
        }
        return .value(converted)
    }
}

extension PredicateExpressions.NilLiteral: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .value(.null)
    }
}

extension PredicateExpressions.ForcedUnwrap: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        switch try conversion.node(of: inner) {
        case .field(let path, _, let quantifier):
            // Reads as the field: a record whose field is nil does not match.
            return .field(path: path, type: Output.self, quantifier: quantifier)
        case .value(.null):
            throw PredicateConversion.unsupported(self, "force-unwrapping nil")
        case .value(let value):
            return .value(value)
        case .optionalPredicate(let predicate, let nilWhen):
            return .predicate(.all(.not(nilWhen), predicate))
        default:
            throw PredicateConversion.unsupported(self, "force-unwrapping something other than a field or constant")
        }
    }
}

extension PredicateExpressions.OptionalFlatMap: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        guard case .field(let path, _, nil) = try conversion.node(of: wrapped) else {
            throw PredicateConversion.unsupported(self, "optional chaining on something other than a field of the record")
        }
        let inner = conversion.binding(variable.key, to: .field(path: path, type: Wrapped.self, quantifier: nil))
        let isNil = QueryPredicate.comparison(FieldComparison(field: path, op: .equal, value: .null))
        switch try inner.node(of: transform) {
        case .field(let subpath, _, nil):
            // `$0.home?.city`: nil wherever `home` is, which the stored path reads the same way.
            return .field(path: subpath, type: Result.self, quantifier: nil)
        case .predicate(let predicate):
            return .optionalPredicate(predicate, nilWhen: isNil)
        case .optionalPredicate(let predicate, let nilWhen):
            return .optionalPredicate(predicate, nilWhen: .any(isNil, nilWhen))
        default:
            throw PredicateConversion.unsupported(self, "flatMap whose closure is neither a field access nor a condition")
        }
    }
}

extension PredicateConversion {
    /// A constant as the query holds it: nil as `.null`, ``QueryValueConvertible`` values, a
    /// `Character` as a one-character string, arrays and sets of these as `.list`.
    package static func queryValue(of value: Any) -> QueryValue? {
        if let optional = value as? any OptionalValue, optional.isNil { return .null }
        if let convertible = value as? any QueryValueConvertible { return convertible.queryValue }
        if let character = value as? Character { return .string(String(character)) }
        if let sequence = value as? any Sequence {
            var values: [QueryValue] = []
            for element in elements(of: sequence) {
                guard let converted = queryValue(of: element), !converted.isList else { return nil }
                values.append(converted)
            }
            return .list(values)
        }
        return nil
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] { sequence.map { $0 } }
}

/// Lets a constant of any `Optional` type be recognised as nil.
private protocol OptionalValue { var isNil: Bool { get } }
extension Optional: OptionalValue { var isNil: Bool { self == nil } }

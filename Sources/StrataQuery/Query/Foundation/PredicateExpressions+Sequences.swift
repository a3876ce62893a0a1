import Foundation

// Sequence and string operations of `#Predicate`:
//
// ```swift
// #Predicate<Post> { $0.tags.contains("swift") }                  // ANY tags == "swift" (= tags CONTAINS "swift")
// #Predicate<Post> { $0.tags.contains { $0.contains("sw") } }     // ANY tags CONTAINS "sw" (substrings)
// #Predicate<Post> { $0.tags.contains { $0.starts(with: "sw") } } // ANY tags BEGINSWITH "sw"
// #Predicate<Post> { $0.scores.allSatisfy { $0 > 3 } }            // ALL scores > 3
// #Predicate<KernUser> { ["Bluth", "James"].contains($0.lastName) }  // lastName IN {"Bluth", "James"}
// #Predicate<KernUser> { $0.firstName.contains("Mich") }          // firstName CONTAINS "Mich"
// #Predicate<KernUser> { $0.lastName.starts(with: "Blu") }        // lastName BEGINSWITH "Blu"
// ```
//
// String `contains` is case-sensitive, as in Swift. (`localizedStandardContains` and
// `caseInsensitiveCompare` are not available to `#Predicate` in swift-corelibs Foundation.)
// Inside `contains(where:)` every comparison must be on the element and they may only be joined
// by `||` (by `&&` in `allSatisfy`), the forms that an `ANY` (`ALL`) on each comparison means.

extension PredicateExpressions.SequenceContains: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        switch (try conversion.node(of: sequence), try conversion.node(of: element)) {
        case (.field(let path, let type, let quantifier), .value(.string(let part)))
            where PredicateConversion.isString(type):
            // `$0.name.contains(Character("x"))`
            return .predicate(.comparison(FieldComparison(field: path, op: .contains, value: .string(part), quantifier: quantifier)))
        case (.field(let path, let type, nil), .value(let value))
            where PredicateConversion.isArray(type) && !value.isList:
            return .predicate(.comparison(FieldComparison(field: path, op: .equal, value: value, quantifier: .any)))
        case (.value(.list(let values)), .field(let path, _, let quantifier)):
            return .predicate(.comparison(FieldComparison(field: path, op: .in, value: .list(values), quantifier: quantifier)))
        default:
            throw PredicateConversion.unsupported(
                self, "contains(_:) needs an array field and a constant, or an array constant and a field")
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.quantified(sequence, variable.key, test, .any, in: self, conversion))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.quantified(sequence, variable.key, test, .all, in: self, conversion))
    }
}

extension PredicateExpressions.CollectionContainsCollection: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.stringOperation(.contains, conversion.node(of: base), conversion.node(of: other), in: self))
    }
}

extension PredicateExpressions.SequenceStartsWith: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.stringOperation(.beginsWith, conversion.node(of: base), conversion.node(of: prefix), in: self))
    }
}

extension PredicateConversion {
    /// `field CONTAINS "part"` / `field BEGINSWITH "prefix"` for a string field (or string element).
    package static func stringOperation(_ op: ComparisonOperator, _ base: QueryNode, _ operand: QueryNode,
                                in expression: Any) throws -> QueryPredicate {
        guard case .field(let path, let type, let quantifier) = base, isString(type),
              case .value(.string(let text)) = operand else {
            throw unsupported(expression, "only a string field with a string constant")
        }
        return .comparison(FieldComparison(field: path, op: op, value: .string(text), quantifier: quantifier))
    }

    /// `ANY` / `ALL` of `test` over the elements of the array field `sequence`.
    package static func quantified(_ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any,
                           _ quantifier: Quantifier, in expression: Any, _ conversion: PredicateConversion) throws -> QueryPredicate {
        guard case .field(let path, let type, nil) = try conversion.node(of: sequence), isArray(type) else {
            throw unsupported(expression, "only over an array field of the record")
        }
        let inner = conversion.binding(variable, to: .field(path: path, type: elementType(of: type), quantifier: quantifier))
        let predicate = try inner.predicate(of: test)
        guard isQuantifiedTest(predicate, path, quantifier) else {
            let joiner = quantifier == .any ? "||" : "&&"
            throw unsupported(expression, "its closure may only compare the element, joined by \(joiner)")
        }
        return predicate
    }

    /// True when `predicate` is comparisons of the element joined by OR (ANY) or AND (ALL): the
    /// forms where quantifying each comparison means the same as quantifying the whole.
    private static func isQuantifiedTest(_ predicate: QueryPredicate, _ path: [String], _ quantifier: Quantifier) -> Bool {
        switch predicate {
        case .comparison(let comparison):
            return comparison.field == path && comparison.quantifier == quantifier
        case .or(let operands) where quantifier == .any, .and(let operands) where quantifier == .all:
            return operands.allSatisfy { isQuantifiedTest($0, path, quantifier) }
        default:
            return false
        }
    }

    package static func isString(_ type: Any.Type) -> Bool {
        let name = unwrappedName(type)
        return name == "String" || name == "Substring"
    }

    package static func isArray(_ type: Any.Type) -> Bool {
        let name = unwrappedName(type)
        return name.hasPrefix("Array<") || name.hasPrefix("Set<") || name.hasPrefix("ContiguousArray<")
    }

    /// The element type's name is all the quantified field needs; `Any` stands for it.
    private static func elementType(of type: Any.Type) -> Any.Type {
        isString(unwrappedElementName(type)) ? String.self : Any.self
    }

    private static func isString(_ name: String) -> Bool { name == "String" || name == "Optional<String>" }

    private static func unwrappedElementName(_ type: Any.Type) -> String {
        let name = unwrappedName(type)
        guard let open = name.firstIndex(of: "<"), name.hasSuffix(">") else { return "" }
        return String(name[name.index(after: open)..<name.index(before: name.endIndex)])
    }

    private static func unwrappedName(_ type: Any.Type) -> String {
        var name = String(describing: type)
        while name.hasPrefix("Optional<"), name.hasSuffix(">") { name = String(name.dropFirst(9).dropLast()) }
        return name
    }
}

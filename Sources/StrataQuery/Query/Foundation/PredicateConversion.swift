import Foundation

/// A `PredicateExpressions` node that can be turned into part of a ``QueryPredicate``.
///
/// The supported expression types conform in the `PredicateExpressions+…` files; each converts
/// its operands through ``PredicateConversion/node(of:)``, which throws `.invalidQuery` naming the
/// first expression type that does not conform, so an unsupported operator is never dropped.
///
/// ```swift
/// let p = #Predicate<KernUser> { $0.lastName == "Bluth" }
/// try PredicateConversion(root: p.variable).predicate(of: p.expression)
/// // .comparison(lastName == "Bluth")
/// ```
package protocol ConvertibleToQuery {
    /// This expression as a query node, in the scope of `conversion`.
    func queryNode(in conversion: PredicateConversion) throws -> QueryNode
}

/// What a `PredicateExpressions` subtree stands for while it is converted.
package enum QueryNode {
    /// The record itself (the predicate's variable).
    case root
    /// A stored field; `quantifier` is set for the element variable of `contains(where:)` and
    /// `allSatisfy`, which stands for the elements of the array field `path`.
    case field(path: [String], type: Any.Type, quantifier: Quantifier?)
    /// A constant.
    case value(QueryValue)
    /// A Boolean condition.
    case predicate(QueryPredicate)
    /// An optional Boolean (`$0.luckyNumber.flatMap { $0 > 5 }`): nil when `nilWhen` holds,
    /// else `predicate`.
    case optionalPredicate(QueryPredicate, nilWhen: QueryPredicate)
    /// A field with a default (`$0.luckyNumber ?? 0`).
    case coalescedField(path: [String], default: QueryValue)
}

/// The state of one conversion: which variable is the record and what the closure variables of
/// `flatMap`, `contains(where:)` and `allSatisfy` stand for.
package struct PredicateConversion {
    private let rootID: PredicateExpressions.VariableID
    private var bindings: [PredicateExpressions.VariableID: QueryNode] = [:]

    package init<Root>(root: PredicateExpressions.Variable<Root>) {
        rootID = root.key
    }

    /// The same conversion with `variable` standing for `node` (inside a closure's body).
    package func binding(_ variable: PredicateExpressions.VariableID, to node: QueryNode) -> Self {
        var copy = self
        copy.bindings[variable] = node
        return copy
    }

    /// What `variable` stands for.
    package func node(ofVariable variable: PredicateExpressions.VariableID) throws -> QueryNode {
        if variable == rootID { return .root }
        if let bound = bindings[variable] { return bound }
        throw Self.error("uses a variable that is not the predicate's input")
    }

    /// Converts one operand; throws `.invalidQuery` for an expression type that is not supported.
    package func node(of expression: Any) throws -> QueryNode {
        guard let convertible = expression as? any ConvertibleToQuery else {
            throw Self.unsupported(expression)
        }
        return try convertible.queryNode(in: self)
    }

    /// Converts a Boolean operand to a condition: a Bool field `f` becomes `f == true`.
    package func predicate(of expression: Any) throws -> QueryPredicate {
        try Self.predicate(from: node(of: expression), in: expression)
    }

    package static func predicate(from node: QueryNode, in expression: Any) throws -> QueryPredicate {
        switch node {
        case .predicate(let predicate):
            return predicate
        case .field(let path, _, let quantifier):
            return .comparison(FieldComparison(field: path, op: .equal, value: .bool(true), quantifier: quantifier))
        case .value(.bool(let value)):
            return .constant(value)
        default:
            throw error("\(name(of: expression)) is not a condition")
        }
    }

    // MARK: Errors

    /// The short name of an expression's type: `Equal` for `PredicateExpressions.Equal<…>`.
    package static func name(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        return String(full.prefix { $0 != "<" })
    }

    package static func unsupported(_ expression: Any, _ detail: String = "") -> StrataError {
        let full = String(describing: type(of: expression))
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        return error("unsupported #Predicate expression \(name(of: expression))\(suffix) (in \(full))")
    }

    package static func error(_ message: String) -> StrataError {
        StrataError(.invalidQuery, message.hasPrefix("unsupported") ? message : "#Predicate " + message)
    }
}

extension QueryPredicate {
    /// `a && b`, flattening nested ANDs as the key-path front end does.
    package static func all(_ lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        switch (lhs, rhs) {
        case (.and(let a), .and(let b)): .and(a + b)
        case (.and(let a), let b): .and(a + [b])
        case (let a, .and(let b)): .and([a] + b)
        case (let a, let b): .and([a, b])
        }
    }

    /// `a || b`, flattening nested ORs.
    package static func any(_ lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        switch (lhs, rhs) {
        case (.or(let a), .or(let b)): .or(a + b)
        case (.or(let a), let b): .or(a + [b])
        case (let a, .or(let b)): .or([a] + b)
        case (let a, let b): .or([a, b])
        }
    }
}

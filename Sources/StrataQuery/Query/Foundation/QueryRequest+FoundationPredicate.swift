import Foundation

extension QueryRequest {
    /// Adds a condition written as a Foundation `#Predicate`, as SwiftData code writes them. It is
    /// converted to the same ``QueryPredicate`` as the other forms, so it runs through the same
    /// planner and uses the same indexes.
    ///
    /// ```swift
    /// try tx.query(User.self).where(#Predicate { $0.lastName == "Bluth" && $0.luckyNumber! > 5 }).all()
    /// try tx.query(User.self).where(#Predicate { $0.tags.contains("vip") }).explain()
    /// ```
    ///
    /// Supported: `==`, `!=`, `<`, `<=`, `>`, `>=` between a field and a constant, `&&`, `||`, `!`,
    /// key paths (nested ones too), constants of ``QueryValueConvertible`` types, `nil`, `!`
    /// (force-unwrap), optional chaining and `flatMap`, `??`, `contains(_:)` and `contains(where:)`
    /// / `allSatisfy` on array fields (`ANY` / `ALL`), `[constants].contains($0.field)` (`IN`),
    /// and on strings `contains(_:)` (`CONTAINS`, case-sensitive as in Swift) and
    /// `starts(with:)` (`BEGINSWITH`). Anything else throws `.invalidQuery` naming the expression.
    /// Force-unwrapping a nil field does not stop the query: the record just does not match.
    public func `where`(_ predicate: Foundation.Predicate<Root>) throws -> Self {
        let converted: QueryPredicate
        do {
            converted = try PredicateConversion(root: predicate.variable).predicate(of: predicate.expression)
        } catch var error as StrataError {
            error.entity = error.entity ?? entity
            throw error
        }
        if let known = knownFields { try converted.forEachFieldPath { path throws(StrataError) in try known.check(path) } }
        try fieldTypes?.check(converted)
        var copy = self
        copy.query = query.filtered(by: converted)
        return copy
    }
}

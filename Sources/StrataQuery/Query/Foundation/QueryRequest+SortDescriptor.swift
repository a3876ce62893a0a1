import Foundation

extension QueryRequest {
    /// Orders by Foundation sort descriptors (after any earlier orderings), as SwiftData and
    /// `Array.sorted(using:)` users write them:
    ///
    /// ```swift
    /// try tx.query(User.self).sorted(by: [SortDescriptor(\.lastName, order: .reverse), SortDescriptor(\.luckyNumber)]).all()
    /// ```
    ///
    /// `.forward` is ascending, `.reverse` descending; nil sorts first in ascending order, as with
    /// every other sort form. Strings order by Unicode code point (the `.lexical` comparator, or
    /// none). Throws `.invalidQuery` for what Strata cannot order by: a descriptor made from a key
    /// string (no key path), a key path that is not a chain of stored properties, a localized
    /// string comparison.
    public func sorted(by descriptors: [SortDescriptor<Root>]) throws -> Self {
        var copy = self
        let known = knownFields
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath else {
                throw StrataError(.invalidQuery, "\(entity): a SortDescriptor without a key path (made from a key string) cannot order a query; use a key path or a sort string",
                                  entity: entity)
            }
            guard let path = FieldPath.components(ofAny: keyPath) else {
                throw StrataError(.invalidQuery, "\(entity): the SortDescriptor key path \(keyPath) does not name a stored field",
                                  entity: entity)
            }
            let name = path.joined(separator: ".")
            try known?.check(path)
            copy.query.orderings.append(QueryOrdering(field: path, ascending: descriptor.order == .forward,
                                                      options: try Self.options(of: descriptor.stringComparator, field: name, entity: entity)))
        }
        return copy
    }

    /// The collation options of a sort descriptor's string comparator: binary for `.lexical`
    /// (Unicode code point order, as every Strata sort without a collation). Localized
    /// comparators (`.localizedStandard` and `.localized` on Apple platforms) order by the
    /// user's locale, which an index cannot; their options are not public on every platform, so
    /// the comparator is compared with `.lexical` itself.
    private static func options(of comparator: String.StandardComparator?, field: String, entity: String) throws -> StringComparisonOptions {
        guard let comparator else { return [] }
        var lexical = String.StandardComparator.lexical
        lexical.order = comparator.order
        if comparator == lexical { return [] }
        throw StrataError(.invalidQuery,
            "\(entity): the SortDescriptor on '\(field)' compares strings by locale, which Strata cannot order by; use .lexical, or a sort string with a collation (\"\(field)[cd] desc\")",
            entity: entity, field: field)
    }
}

extension FieldSelection {
    /// The selection of the fields `predicate` and `orderings` read, and the fields of `texts`'
    /// full-text indexes (a `SEARCH` reads them all: its query may scope any).
    package convenience init(predicate: QueryPredicate, orderings: [QueryOrdering], fields: FieldTable,
                     texts: [FieldComparison: TextSearchTarget] = [:]) {
        var names: [String] = []
        func select(_ path: [String]) {
            if let first = path.first, !names.contains(first) { names.append(first) }
        }
        predicate.forEachComparison { select($0.field) }
        for target in texts.values { target.descriptor.fieldPaths.forEach(select) }
        orderings.forEach { select($0.field) }
        self.init(names: names, fields: fields)
    }
}

extension QueryPredicate {
    /// Calls `body` with every comparison in the predicate.
    package func forEachComparison(_ body: (FieldComparison) -> Void) {
        switch self {
        case .constant: break
        case .comparison(let comparison): body(comparison)
        case .and(let operands), .or(let operands): operands.forEach { $0.forEachComparison(body) }
        case .not(let operand): operand.forEachComparison(body)
        }
    }
}

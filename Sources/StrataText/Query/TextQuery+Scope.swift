/// What a query says beyond its matches: the fields its unscoped words go to, and its terms.
extension TextQuery {
    /// The query with every match that names no field (`lmdb`, not `title:lmdb`) limited to the
    /// fields of `fields` (a bit per field of the index); matches that name fields keep them.
    package func scoped(to fields: UInt64) -> TextQuery {
        switch self {
        case .match(var match):
            if match.fields == nil { match.fields = fields }
            return .match(match)
        case .near(let matches, let distance):
            return .near(matches.map { var match = $0; if match.fields == nil { match.fields = fields }; return match },
                         distance: distance)
        case .all(let queries): return .all(queries.map { $0.scoped(to: fields) })
        case .any(let queries): return .any(queries.map { $0.scoped(to: fields) })
        case .excluding(let positive, let negative): return .excluding(positive.scoped(to: fields), negative.scoped(to: fields))
        case .nothing: return .nothing
        }
    }

    /// Every term of the query, both sides of a `NOT` included, in the order they appear, each once.
    package var terms: [TextQueryTerm] {
        var seen = Set<TextQueryTerm>()
        var found: [TextQueryTerm] = []
        func visit(_ query: TextQuery) {
            switch query {
            case .match(let match):
                for term in match.terms { var term = term; term.offset = 0; if seen.insert(term).inserted { found.append(term) } }
            case .near(let matches, _):
                for match in matches { visit(.match(match)) }
            case .all(let queries), .any(let queries): queries.forEach(visit)
            case .excluding(let positive, let negative): visit(positive); visit(negative)
            case .nothing: break
            }
        }
        visit(self)
        return found
    }
}

/// Documents every child matches, scored as the sum of the children's scores (in the query's
/// order), led by the cheapest child.
final class ConjunctionScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    let children: [any Scorer]
    private let byCost: [any Scorer]

    init(_ children: [any Scorer]) {
        self.children = children
        byCost = children.sorted { $0.cost < $1.cost }
        maxScore = children.reduce(0) { $0 + $1.maxScore }
        cost = byCost.first?.cost ?? 0
    }

    func advance(to target: DocumentID) throws {
        var target = target
        search: while true {
            for child in byCost {
                if child.document < target { try child.advance(to: target) }
                if child.document == .max { document = .max; return }
                if child.document > target {
                    target = child.document
                    continue search
                }
            }
            document = target
            return
        }
    }

    func score() throws -> Double {
        var total = 0.0
        for child in children { total += try child.score() }
        return total
    }

    func bound() -> (value: Double, upTo: DocumentID) {
        var value = 0.0, upTo = DocumentID.max
        for child in children {
            let (childValue, childUpTo) = child.bound()
            value += childValue
            upTo = min(upTo, childUpTo)
        }
        return (value, upTo)
    }
}

/// Documents any child matches, scored as the sum of the scores of the children that match them
/// (in the query's order). Given a minimum score, it skips by WAND: a document is a candidate only
/// when the children at or before it could together score more than the minimum.
final class DisjunctionScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    let children: [any Scorer]
    private var minimumScore = -Double.infinity

    init(_ children: [any Scorer]) {
        self.children = children
        maxScore = children.reduce(0) { $0 + $1.maxScore }
        cost = children.reduce(0) { $0 + $1.cost }
    }

    func setMinimumScore(_ score: Double) { minimumScore = score }

    func advance(to target: DocumentID) throws {
        for child in children where child.document < target { try child.advance(to: target) }
        guard minimumScore > -Double.infinity else {
            document = children.map(\.document).min() ?? .max
            return
        }
        while true {
            let live = children.filter { $0.document != .max }.sorted { $0.document < $1.document }
            var sum = 0.0
            var pivot: DocumentID?
            for child in live {
                sum += child.maxScore
                if sum > minimumScore {
                    pivot = child.document
                    break
                }
            }
            guard let pivot else { document = .max; return }
            if live[0].document == pivot {
                document = pivot
                return
            }
            for child in live where child.document < pivot { try child.advance(to: pivot) }
        }
    }

    func score() throws -> Double {
        var total = 0.0
        for child in children where child.document == document { total += try child.score() }
        return total
    }

    func bound() -> (value: Double, upTo: DocumentID) {
        var value = 0.0, upTo = DocumentID.max
        for child in children where child.document != .max {
            let (childValue, childUpTo) = child.bound()
            value += childValue
            upTo = min(upTo, childUpTo)
        }
        return (value, upTo)
    }
}

/// Documents the first child matches and the second does not, scored as the first scores them.
final class ExclusionScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    let positive: any Scorer
    let negative: any Scorer

    init(_ positive: any Scorer, excluding negative: any Scorer) {
        self.positive = positive
        self.negative = negative
        maxScore = positive.maxScore
        cost = positive.cost
    }

    func advance(to target: DocumentID) throws {
        try positive.advance(to: target)
        while positive.document != .max {
            if negative.document < positive.document { try negative.advance(to: positive.document) }
            guard negative.document == positive.document else { break }
            try positive.advance(to: positive.document + 1)
        }
        document = positive.document
    }

    func score() throws -> Double { try positive.score() }

    func bound() -> (value: Double, upTo: DocumentID) { positive.bound() }

    func setMinimumScore(_ score: Double) { positive.setMinimumScore(score) }
}

/// A node of a running query: the documents it matches, in ascending order, with their scores and
/// bounds on the scores ahead.
///
/// Every scorer starts before its first document (``document`` is 0) and moves forward only;
/// ``advance(to:)`` stops at the first match at or after its target. ``bound()`` bounds the score of
/// every match from the current document through the document it returns (the blocks its cursors
/// are in), so top-k can skip to the document after it when the bound cannot beat the k-th score.
protocol Scorer: AnyObject {
    /// The current match: 0 before the first advance, `UInt64.max` after the last.
    var document: DocumentID { get }
    /// A bound on any score this scorer gives.
    var maxScore: Double { get }
    /// What it costs to walk (about how many documents it visits), to lead conjunctions by the cheapest.
    var cost: Int { get }
    /// Moves to the first match at or after `target`.
    func advance(to target: DocumentID) throws
    /// The current match's score.
    func score() throws -> Double
    /// A bound on the scores of the matches from the current document through `upTo`.
    func bound() -> (value: Double, upTo: DocumentID)
    /// Tells the scorer that only matches scoring more than `score` are wanted (it may skip others).
    func setMinimumScore(_ score: Double)
}

extension Scorer {
    func setMinimumScore(_ score: Double) {}
    func bound() -> (value: Double, upTo: DocumentID) { (maxScore, .max) }
}

/// The statistics and parameters every scorer of one search shares.
final class ScoringContext {
    let reader: any TextIndexReader
    let ranking: BM25
    let documentCount: Int
    let averageLength: Double
    private var lastDocument: DocumentID = 0
    private var lastLength: Double = 1

    init(reader: any TextIndexReader, ranking: BM25) throws {
        self.reader = reader
        self.ranking = ranking
        let statistics = try reader.statistics()
        documentCount = Int(clamping: statistics.documentCount)
        averageLength = statistics.averageLength
    }

    /// The length of `document` (looked up once when several terms score it).
    func length(of document: DocumentID) throws -> Double {
        if document != lastDocument {
            lastLength = Double(try reader.documentLength(of: document))
            lastDocument = document
        }
        return lastLength
    }

    private var idfs: [IDFKey: Double] = [:]
    private struct IDFKey: Hashable {
        var term: String
        var fields: UInt64?
    }

    /// The inverse document frequency of `term` in the fields of `fields` (all when nil), counted
    /// once per search.
    func idf(of term: String, in fields: UInt64?) throws -> Double {
        let key = IDFKey(term: term, fields: fields)
        if let idf = idfs[key] { return idf }
        let idf = ranking.idf(documentFrequency: try reader.documentFrequency(of: term, in: fields), documentCount: documentCount)
        idfs[key] = idf
        return idf
    }
}

/// One term's postings (in some fields), scored by BM25 times a weight (below 1 for a term a typo
/// away from the query's).
final class TermScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    let cursor: any PostingCursor
    let fields: UInt64?
    let weight: Double
    let idf: Double
    let context: ScoringContext

    /// The postings of `term` in `cursor`, scored in the fields of `fields` (all when nil).
    init(term: String, cursor: any PostingCursor, fields: UInt64?, weight: Double, context: ScoringContext) throws {
        self.cursor = cursor
        self.fields = fields
        self.weight = weight
        self.context = context
        idf = try context.idf(of: term, in: fields)
        let global = cursor.globalBounds
        maxScore = context.ranking.bound(idf: idf, maximumFrequencies: global.maximumFrequencies, fields: fields,
                                         minimumLength: global.minimumLength, averageLength: context.averageLength) * weight
        cost = cursor.postingCount
    }

    func advance(to target: DocumentID) throws {
        try cursor.advance(to: target)
        if let fields {
            while cursor.document != .max && !cursor.frequencies.enumerated().contains(where: { $1 > 0 && fields & (1 << UInt64($0)) != 0 }) {
                try cursor.advance(to: cursor.document + 1)
            }
        }
        document = cursor.document
    }

    func score() throws -> Double {
        let frequency = context.ranking.weightedFrequency(cursor.frequencies, fields: fields)
        return context.ranking.score(idf: idf, frequency: frequency, length: try context.length(of: document),
                                     averageLength: context.averageLength) * weight
    }

    func bound() -> (value: Double, upTo: DocumentID) {
        guard document != .max else { return (0, .max) }
        let block = cursor.blockBounds
        let value = context.ranking.bound(idf: idf, maximumFrequencies: block.maximumFrequencies, fields: fields,
                                          minimumLength: block.minimumLength, averageLength: context.averageLength)
        return (value * weight, block.lastDocument)
    }
}

/// The terms a prefix or a typo-tolerant word expands to: a document matches when any of them
/// occurs, and scores as the best of them.
final class BestOfScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    let children: [any Scorer]

    init(_ children: [any Scorer]) {
        self.children = children
        maxScore = children.map(\.maxScore).max() ?? 0
        cost = children.reduce(0) { $0 + $1.cost }
    }

    func advance(to target: DocumentID) throws {
        for child in children where child.document < target { try child.advance(to: target) }
        document = children.map(\.document).min() ?? .max
    }

    func score() throws -> Double {
        var best = 0.0
        for child in children where child.document == document { best = max(best, try child.score()) }
        return best
    }

    func bound() -> (value: Double, upTo: DocumentID) {
        var value = 0.0, upTo = DocumentID.max
        for child in children where child.document != .max {
            let (childValue, childUpTo) = child.bound()
            value = max(value, childValue)
            upTo = min(upTo, childUpTo)
        }
        return (value, upTo)
    }
}

/// No document.
final class EmptyScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    func advance(to target: DocumentID) throws { document = .max }
    func score() -> Double { 0 }
}

/// A full-text index: the words of some text fields, for `SEARCH` conditions and relevance order.
///
/// Declared on a record type with ``IndexDefinition/fullText(_:weights:stemming:stopWords:name:)``,
/// or in a schema file as an entity's `"fullText"` list:
/// ```json
/// "fullText": [ ["title", "body"],
///               {"fields": ["title", "body"], "weights": [2, 1], "stemming": "english", "stopWords": "english"} ]
/// ```
/// The store records it in the catalog with the versions of the tokenizer's and the folding's rules
/// (an index made by other rules is rebuilt).
public struct FullTextIndexDescription: Sendable, Hashable, Codable {
    /// The index's name: its fields joined by commas (`title,body`) unless one was given. Full-text
    /// indexes have names of their own, apart from the entity's other indexes.
    public var name: String
    /// The indexed fields: dotted paths of text fields (`title`, `address.note`).
    public var fields: [String]
    /// The weight of each field's words in relevance (BM25, as SQLite FTS5's `bm25()` weighs
    /// columns): one per field, positive; 1 for every field by default.
    public var weights: [Double]
    /// Whether words are reduced to their stems (`running` finds `runs`).
    public var stemming: TextStemming
    /// Which words are left out of the index and of queries.
    public var stopWords: TextStopWords

    /// A full-text index on `fields`, each weighing `weights` (one per field; all 1 when nil).
    public init(fields: [String], weights: [Double]? = nil, stemming: TextStemming = .none, stopWords: TextStopWords = .none,
                name: String? = nil) {
        self.name = name ?? fields.joined(separator: ",")
        self.fields = fields
        self.weights = weights ?? Array(repeating: 1, count: fields.count)
        self.stemming = stemming
        self.stopWords = stopWords
    }

    private enum CodingKeys: String, CodingKey { case name, fields, weights, stemming, stopWords }

    /// Reads the form ``encode(to:)`` writes; `name`, `weights`, `stemming` and `stopWords` may be
    /// left out (their defaults).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(fields: try container.decode([String].self, forKey: .fields),
                  weights: try container.decodeIfPresent([Double].self, forKey: .weights),
                  stemming: try container.decodeIfPresent(TextStemming.self, forKey: .stemming) ?? .none,
                  stopWords: try container.decodeIfPresent(TextStopWords.self, forKey: .stopWords) ?? .none,
                  name: try container.decodeIfPresent(String.self, forKey: .name))
    }

    /// Throws `.invalidValue` naming the problem: no fields, a field named twice, or weights that
    /// are not one positive finite number per field.
    public func validate(entity: String) throws(StrataError) {
        func invalid(_ message: String) -> StrataError {
            StrataError(.invalidValue, "entity '\(entity)': the full-text index '\(name)' \(message)", entity: entity, field: name)
        }
        guard !fields.isEmpty else { throw invalid("has no fields") }
        guard !name.isEmpty, !name.contains("/") else { throw invalid("needs a name that is non-empty and has no '/'") }
        if let twice = fields.enumerated().first(where: { fields[..<$0.offset].contains($0.element) }) {
            throw invalid("names the field '\(twice.element)' twice")
        }
        guard weights.count == fields.count else { throw invalid("has \(weights.count) weights for \(fields.count) fields") }
        if let bad = weights.first(where: { !($0 > 0) || !$0.isFinite }) { throw invalid("has the weight \(bad); a weight is a positive number") }
    }
}

/// Whether a full-text index reduces words to their stems, in documents and queries alike.
public enum TextStemming: String, Sendable, Hashable, Codable, CaseIterable {
    /// Words are indexed as folded (case and diacritics, as the `[cd]` collation folds).
    case none
    /// English words are reduced to their stems by Porter2 (`running` → `run`, `connections` →
    /// `connect`); numbers and identifiers are kept whole.
    case english
}

/// The words a full-text index leaves out, in documents and queries alike. A left-out word keeps its
/// position, so a phrase keeps its gaps.
public enum TextStopWords: String, Sendable, Hashable, Codable, CaseIterable {
    /// No list: every word is indexed.
    case none
    /// English function words: articles, pronouns, auxiliaries, prepositions and conjunctions.
    case english
}

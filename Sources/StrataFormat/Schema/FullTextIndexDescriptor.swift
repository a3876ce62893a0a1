/// What the catalog keeps of a full-text index (an entity's `fullTextIndexes`, beside its `indexes`,
/// so that the index key encoder, unique checks and key ranges never meet one): the declaration
/// and the versions of the rules its terms were made with. Read by CatalogJSON+Entries.swift.
///
/// Descriptors compare unequal across versions, so a declared index whose recorded versions are not
/// the current ones is made again, as a folded index is when ``Collation/rulesVersion`` changes.
package struct FullTextIndexDescriptor: Sendable, Encodable, Hashable {
    package var name: String
    /// Dotted paths of the indexed text fields.
    package var fields: [String]
    /// One per field (``FullTextIndexDescription/weights``).
    package var weights: [Double]
    package var stemming: TextStemming
    package var stopWords: TextStopWords
    /// Whether word positions are stored (phrases and `NEAR` need them); always true so far.
    package var positions: Bool
    /// The tokenizer's rules version (StrataText's `TextTokenizer.rulesVersion`) the terms were
    /// made with.
    package var tokenizerVersion: Int
    /// The ``Collation/rulesVersion`` the terms were folded with.
    package var foldingVersion: Int

    package init(name: String, fields: [String], weights: [Double], stemming: TextStemming, stopWords: TextStopWords,
                 positions: Bool, tokenizerVersion: Int, foldingVersion: Int) {
        self.name = name
        self.fields = fields
        self.weights = weights
        self.stemming = stemming
        self.stopWords = stopWords
        self.positions = positions
        self.tokenizerVersion = tokenizerVersion
        self.foldingVersion = foldingVersion
    }

    /// The descriptor of `declaration` made now: with positions, by the tokenizer rules
    /// `tokenizerVersion` (the caller's, which knows the tokenizer) and this process's folding.
    package init(_ declaration: FullTextIndexDescription, tokenizerVersion: Int) {
        self.init(name: declaration.name, fields: declaration.fields, weights: declaration.weights, stemming: declaration.stemming,
                  stopWords: declaration.stopWords, positions: true, tokenizerVersion: tokenizerVersion,
                  foldingVersion: Collation.rulesVersion)
    }

    /// The declaration this descriptor records.
    package var declaration: FullTextIndexDescription {
        FullTextIndexDescription(fields: fields, weights: weights, stemming: stemming, stopWords: stopWords, name: name)
    }

    /// The dotted field paths as component arrays (`address.note` → `["address", "note"]`).
    package var fieldPaths: [[String]] { fields.map { $0.split(separator: ".").map(String.init) } }

    private enum CodingKeys: String, CodingKey {
        case name, fields, weights, stemming, stopWords, positions, tokenizerVersion, foldingVersion
    }
}

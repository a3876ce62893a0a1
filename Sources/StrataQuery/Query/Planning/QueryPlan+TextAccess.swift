extension QueryPlan {
    /// A `SEARCH` comparison answered by its full-text index: the comparison, the index, and the
    /// query's terms with the documents holding each, from which the planner estimates the
    /// matches. Explained as `TextSearch(Article.title,body: body SEARCH "lmdb swift"; lmdb 3, swift 12)`.
    public struct TextAccess: Sendable, Hashable {
        /// The comparison (`body SEARCH "lmdb swift"`).
        public var comparison: FieldComparison
        /// The full-text index's name.
        public var index: String
        /// The query's terms, each with the documents holding it, in the order they appear.
        public var terms: [TermFrequency]

        /// An access answering `comparison` from `index`.
        public init(comparison: FieldComparison, index: String, terms: [TermFrequency]) {
            self.comparison = comparison
            self.index = index
            self.terms = terms
        }
    }

    /// A term of a full-text query and the documents that hold it.
    public struct TermFrequency: Sendable, Hashable {
        /// The term as indexed (folded, stemmed), with `*` after a prefix and `~1` or `~2` after a
        /// word matched with typos.
        public var term: String
        /// The documents holding it (for a prefix or a word with typos, holding any term it
        /// stands for), deleted ones whose postings are not merged away yet included.
        public var documents: Int

        /// A term and its document frequency.
        public init(term: String, documents: Int) {
            self.term = term
            self.documents = documents
        }
    }
}

extension QueryPlan.TextAccess {
    /// `Article.title,body: body SEARCH "lmdb swift"; lmdb 3, swift 12`.
    package func explained(entity: String) -> String {
        "\(entity).\(index): \(comparison.explained); " + terms.map { "\($0.term) \($0.documents)" }.joined(separator: ", ")
    }
}

import StrataFormat

/// The words a tokenizer with a stop-word list leaves out of the index and out of queries.
///
/// A left-out word still takes its position, so a phrase keeps its gaps: `"lord of the rings"`
/// finds "Lord of the Rings" and not "lord rings". Words are matched after folding and before
/// stemming.
///
/// The cases are StrataFormat's ``TextStopWords`` (what a full-text index declares and the
/// catalog records); this file gives them their lists.
package typealias StopWords = TextStopWords

extension TextStopWords {
    /// True when `term` (folded) is on the list.
    package func contains(_ term: String) -> Bool {
        switch self {
        case .none: false
        case .english: Self.englishWords.contains(term)
        }
    }

    static let englishWords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
        "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
        "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if",
        "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor",
        "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
        "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs",
        "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
        "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
        "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
    ]
}

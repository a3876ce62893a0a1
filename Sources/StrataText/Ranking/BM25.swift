import Foundation

/// BM25 relevance with per-field weights, in the form SQLite FTS5's `bm25()` computes it: the
/// fields' frequencies weighted and added first, then saturated once with one length normalization
/// over the whole document (a BM25F with one `b` for all fields; per-field normalization is not
/// offered). So a ranking agrees with FTS5's on the same weights and tokens.
///
/// For a query term t and a document d:
///
///     tf~  = Σ over fields f of  weight(f) · tf(t, d, f)
///     idf  = ln((N − n + 0.5) / (n + 0.5)), at least 10⁻⁶       (N documents, n of them with t)
///     score = idf · tf~ · (k1 + 1) / (tf~ + k1 · (1 − b + b · |d| / avg|d|))
///
/// where |d| is the document's length (the positions its indexed fields take together). The score
/// grows with tf~ and falls with |d|, so a block's highest frequencies and least length bound every
/// score in it (``bound(idf:maximumFrequencies:fields:minimumLength:averageLength:)``), and no score
/// reaches idf · (k1 + 1) (``ceiling(idf:)``). A query's score is the sum of its terms' scores.
package struct BM25: Sendable, Hashable {
    /// Term-frequency saturation (1.2, as FTS5 and Lucene).
    package var k1: Double
    /// Length normalization (0.75).
    package var b: Double
    /// Each field's weight (positive), in the index's field order.
    package var fieldWeights: [Double]

    /// Parameters; every weight must be positive and finite.
    package init(fieldWeights: [Double], k1: Double = 1.2, b: Double = 0.75) {
        precondition(fieldWeights.allSatisfy { $0 > 0 && $0.isFinite }, "field weights must be positive")
        self.fieldWeights = fieldWeights
        self.k1 = k1
        self.b = b
    }

    /// Bounds are raised by this factor, so that rounding never puts a score above its bound.
    static let boundSlack = 1 + 1e-9

    /// The inverse document frequency of a term in `documentFrequency` of `documentCount` documents.
    package func idf(documentFrequency: Int, documentCount: Int) -> Double {
        let n = Double(documentFrequency), count = Double(max(documentCount, documentFrequency))
        return max(1e-6, log((count - n + 0.5) / (n + 0.5)))
    }

    /// The weighted frequency of a term with `frequencies` per field, counting only the fields in
    /// `fields` (a bit per field; all when nil).
    package func weightedFrequency(_ frequencies: some Collection<UInt32>, fields: UInt64? = nil) -> Double {
        var total = 0.0
        for (field, frequency) in frequencies.enumerated() where frequency > 0 {
            if let fields, fields & (1 << UInt64(field)) == 0 { continue }
            total += fieldWeights[field] * Double(frequency)
        }
        return total
    }

    /// The score of a term of inverse document frequency `idf` with weighted frequency `frequency` in
    /// a document of `length` when documents average `averageLength`.
    package func score(idf: Double, frequency: Double, length: Double, averageLength: Double) -> Double {
        guard frequency > 0 else { return 0 }
        return idf * frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * length / averageLength))
    }

    /// A bound on the score of a term in any document of a block (or a whole posting list) whose
    /// highest frequencies per field are `maximumFrequencies` and least length `minimumLength`.
    package func bound(idf: Double, maximumFrequencies: [UInt32], fields: UInt64?, minimumLength: UInt32,
                       averageLength: Double) -> Double {
        score(idf: idf, frequency: weightedFrequency(maximumFrequencies, fields: fields), length: Double(minimumLength),
              averageLength: averageLength) * Self.boundSlack
    }

    /// A bound on any score of a term of inverse document frequency `idf`, whatever its frequency.
    package func ceiling(idf: Double) -> Double { idf * (k1 + 1) * Self.boundSlack }
}

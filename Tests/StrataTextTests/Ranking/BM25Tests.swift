import Foundation
import Testing
import TestSupport
@testable import StrataText

/// BM25's formula on hand-computed values, and its bounds above every score they bound.
@Suite struct BM25Tests {
    @Test func scoresAreTheFormulasOnHandComputedValues() {
        let ranking = BM25(fieldWeights: [2, 1])
        // 10 documents, 2 hold the term: ln((10 − 2 + 0.5) / (2 + 0.5)) = ln(3.4).
        let idf = ranking.idf(documentFrequency: 2, documentCount: 10)
        #expect(abs(idf - log(3.4)) < 1e-12)
        // Frequencies 1 (weight 2) and 3 (weight 1): tf~ = 5; length 20, average 10.
        let frequency = ranking.weightedFrequency([1, 3] as [UInt32])
        #expect(frequency == 5)
        let expected = log(3.4) * 5 * 2.2 / (5 + 1.2 * (0.25 + 0.75 * 2))
        #expect(abs(ranking.score(idf: idf, frequency: frequency, length: 20, averageLength: 10) - expected) < 1e-12)
        #expect(ranking.weightedFrequency([1, 3] as [UInt32], fields: 0b10) == 3)
        // A term in more than half the documents keeps a tiny positive idf, as FTS5's does.
        #expect(ranking.idf(documentFrequency: 9, documentCount: 10) == 1e-6)
    }

    @Test func boundsAreAtLeastEveryScoreTheyCover() {
        var random = SeededGenerator(seed: 25)
        for _ in 0..<5_000 {
            let fields = Int.random(in: 1...3, using: &random)
            let ranking = BM25(fieldWeights: (0..<fields).map { _ in Double.random(in: 0.1...5, using: &random) })
            let idf = Double.random(in: 1e-6...12, using: &random)
            let average = Double.random(in: 1...500, using: &random)
            let maximum = (0..<fields).map { _ in UInt32.random(in: 0...50, using: &random) }
            let least = UInt32.random(in: 1...1_000, using: &random)
            let bound = ranking.bound(idf: idf, maximumFrequencies: maximum, fields: nil, minimumLength: least, averageLength: average)
            let frequencies = maximum.map { UInt32.random(in: 0...$0, using: &random) }
            let length = Double(least + UInt32.random(in: 0...1_000, using: &random))
            let score = ranking.score(idf: idf, frequency: ranking.weightedFrequency(frequencies), length: length, averageLength: average)
            #expect(score <= bound)
            #expect(score < ranking.ceiling(idf: idf))
        }
    }
}

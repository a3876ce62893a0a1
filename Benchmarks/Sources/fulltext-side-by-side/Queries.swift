import Foundation

/// The measured query shapes.
enum TextShape: String, CaseIterable, Sendable {
    case oneTerm = "one term"
    case twoTerms = "two terms"
    case threeTerms = "three terms"
    case phrase = "phrase"
    case prefix = "prefix"
    case selective = "selective term + section"
}

/// One query: the full-text query string (the same text for both engines: both take bare words
/// as an AND, `"a b"` as a phrase and `abc*` as a prefix) and, for the selective shape, the
/// section it is combined with.
struct TextQueryCase: Sendable {
    var text: String
    var section: String?
}

/// A deterministic generator (SplitMix64), so every run asks the same queries.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Queries drawn from the corpus itself: each from a random document, so every query matches at
/// least one. Words are lower-case runs of three or more ASCII letters standing between spaces
/// or plain punctuation (so that both tokenizers see the same word: not inside `file.txt`,
/// `can't` or `foo_bar`, where UAX #29 and unicode61 cut differently), and not `and`, `or`,
/// `not`, `near`.
enum QueryDraw {
    static let before: Set<UInt8> = Set(" (\"[{<,;:".utf8)
    static let after: Set<UInt8> = Set(" ,;:)]}>\"!?".utf8)
    static let reserved: Set<String> = ["and", "or", "not", "near"]

    /// The clean words of `text`, in order, with whether each is followed by the next after one space.
    static func words(_ text: String) -> [(word: String, adjacentToNext: Bool)] {
        let bytes = Array(text.utf8)
        var result: [(String, Bool)] = []
        var i = 0
        var lastEnd = -10
        while i < bytes.count {
            guard isLetter(bytes[i]) else { i += 1; continue }
            let start = i
            while i < bytes.count && isLetter(bytes[i]) { i += 1 }
            let end = i
            let okBefore = start == 0 || before.contains(bytes[start - 1])
            let okAfter = end == bytes.count || after.contains(bytes[end])
                || (bytes[end] == UInt8(ascii: ".") && (end + 1 == bytes.count || bytes[end + 1] == UInt8(ascii: " ")))
            if okBefore && okAfter && end - start >= 3 {
                let word = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
                if !reserved.contains(word) {
                    if lastEnd == start - 1 && bytes[start - 1] == UInt8(ascii: " "), !result.isEmpty { result[result.count - 1].1 = true }
                    result.append((word, false))
                    lastEnd = end
                    continue
                }
            }
            lastEnd = -10
        }
        return result
    }

    static func isLetter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }

    /// Documents holding each lower-cased ASCII letter run (an estimate of a term's document
    /// frequency, for picking selective terms).
    static func documentFrequencies(_ documents: [ManualParagraph]) -> [String: Int] {
        var df: [String: Int] = [:]
        for d in documents {
            var seen = Set<String>()
            for (w, _) in words(d.body) { seen.insert(w) }
            for w in seen { df[w, default: 0] += 1 }
        }
        return df
    }

    static func draw(_ shape: TextShape, count: Int, from documents: [ManualParagraph], df: [String: Int], seed: UInt64) -> [TextQueryCase] {
        var random = SplitMix(state: seed &+ UInt64(TextShape.allCases.firstIndex(of: shape)!) &* 7919)
        var sections: [String: Int] = [:]
        for d in documents { sections[d.section, default: 0] += 1 }
        var result: [TextQueryCase] = []
        var attempts = 0
        while result.count < count && attempts < count * 1000 {
            attempts += 1
            let d = documents[Int(random.next() % UInt64(documents.count))]
            let w = words(d.body)
            guard !w.isEmpty else { continue }
            func pick() -> String { w[Int(random.next() % UInt64(w.count))].word }
            switch shape {
            case .oneTerm: result.append(.init(text: pick()))
            case .twoTerms, .threeTerms:
                let n = shape == .twoTerms ? 2 : 3
                let distinct = Array(Set(w.map(\.word)))
                guard distinct.count >= n else { continue }
                var chosen: [String] = []
                while chosen.count < n { let c = pick(); if !chosen.contains(c) { chosen.append(c) } }
                result.append(.init(text: chosen.joined(separator: " ")))
            case .phrase:
                let starts = w.indices.filter { w[$0].adjacentToNext && $0 + 1 < w.count }
                guard !starts.isEmpty else { continue }
                let s = starts[Int(random.next() % UInt64(starts.count))]
                result.append(.init(text: "\"\(w[s].word) \(w[s + 1].word)\""))
            case .prefix:
                let long = w.filter { $0.word.count >= 5 }
                guard !long.isEmpty else { continue }
                result.append(.init(text: String(long[Int(random.next() % UInt64(long.count))].word.prefix(4)) + "*"))
            case .selective:
                // A section holding at most 10 % of the documents, a term in at most 0.5 % of them.
                guard Double(sections[d.section] ?? 0) <= 0.1 * Double(documents.count) else { continue }
                let rare = w.filter { (df[$0.word] ?? 0) <= max(2, documents.count / 200) }
                guard !rare.isEmpty else { continue }
                result.append(.init(text: rare[Int(random.next() % UInt64(rare.count))].word, section: d.section))
            }
        }
        return result
    }

    /// One-term queries for a corpus in another language: a word of four or more letters (any
    /// script but CJK) standing between spaces or punctuation, or the first two characters of a
    /// run of CJK ideographs or kana (a two-character word, one bigram for Strata).
    static func drawMultilingual(count: Int, from documents: [ManualParagraph], cjk: Bool, seed: UInt64) -> [TextQueryCase] {
        var random = SplitMix(state: seed)
        var result: [TextQueryCase] = []
        var attempts = 0
        while result.count < count && attempts < count * 1000 {
            attempts += 1
            let d = documents[Int(random.next() % UInt64(documents.count))]
            var candidates: [String] = []
            var run: [Character] = []
            var runValid = true
            var previous: Character? = nil
            func end() {
                if cjk, run.count >= 2 { candidates.append(String(run.prefix(2))) }
                if !cjk, runValid, run.count >= 4 { candidates.append(String(run).lowercased()) }
                run = []
            }
            for c in d.body {
                let inside = cjk ? isCJK(c) : c.isLetter && !isCJK(c)
                if inside {
                    // A word must stand between spaces or plain punctuation (not in `l'entrée`, `foo_bar`, `x2y`).
                    if run.isEmpty { runValid = previous.map { $0 == " " || "(\"[,;:".contains($0) } ?? true }
                    run.append(c)
                } else {
                    if !cjk && !(c == " " || ",;:)!?".contains(c)) { runValid = false }
                    end()
                }
                previous = c
            }
            end()
            let usable = candidates.filter { !reserved.contains($0) }
            guard !usable.isEmpty else { continue }
            result.append(.init(text: usable[Int(random.next() % UInt64(usable.count))]))
        }
        return result
    }

    static func isCJK(_ c: Character) -> Bool {
        guard let s = c.unicodeScalars.first else { return false }
        switch s.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: return true
        default: return false
        }
    }
}

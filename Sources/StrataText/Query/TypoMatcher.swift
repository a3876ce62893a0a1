/// Finds the terms of a sorted term dictionary within an edit distance of a query word, visiting
/// as few terms as it can: the dictionary is walked in ascending byte order (as an LMDB cursor
/// walks a B-tree's keys), and where no term with the current prefix can be close enough, the
/// matcher tells the walk to skip past every term with that prefix.
///
/// The distance is Damerau–Levenshtein in its restricted form (optimal string alignment): an
/// insertion, a deletion, a substitution or a swap of two neighbouring characters costs 1, each
/// counted in Unicode scalars of the folded terms. The dynamic-programming rows of the current
/// term's prefixes are kept on a stack, so a term that shares a prefix with the one before it only
/// computes the rows of its own characters (a bounded DP over the sorted dictionary, the effect of
/// a Levenshtein automaton without building one).
///
/// ```swift
/// var matcher = TypoMatcher(word: "searhc", maximumDistance: 1)
/// matcher.distance(to: Array("search".utf8))   // 1
/// ```
package struct TypoMatcher: Sendable {
    /// The query word's scalars.
    let word: [UInt32]
    /// The most edits a match may need.
    package let maximumDistance: Int
    /// The scalars of the last term visited, and the DP row after each of its first i scalars
    /// (row 0 is the empty prefix's).
    private var scalars: [UInt32] = []
    private var rows: [[Int]]
    /// The UTF-8 length of each prefix of the last term (prefixBytes[i] for its first i scalars).
    private var prefixBytes: [Int] = [0]

    /// A matcher of terms within `maximumDistance` edits of `word` (folded as terms are).
    package init(word: String, maximumDistance: Int) {
        self.word = word.unicodeScalars.map(\.value)
        self.maximumDistance = maximumDistance
        rows = [Array(0...self.word.count)]
    }

    /// The edit distances allowed for a folded query word of `length` characters: 1 from five
    /// characters, 2 from nine, none below.
    package static func allowedDistance(forLength length: Int) -> Int {
        length >= 9 ? 2 : length >= 5 ? 1 : 0
    }

    /// What the walk does after visiting a term.
    package enum Step: Equatable, Sendable {
        /// The term is within the distance (given), go on with the next term.
        case match(Int)
        /// The term is not, go on with the next term.
        case next
        /// No term from the visited one up to (not including) these bytes can match: seek there.
        case skip(to: [UInt8])
    }

    /// The distance of `term` (its UTF-8 bytes) if it is at most ``maximumDistance``, else nil.
    package mutating func distance(to term: [UInt8]) -> Int? {
        if case .match(let distance) = visit(term) { return distance }
        return nil
    }

    /// Visits `term`, the next term of an ascending walk (any term works; terms in order reuse the
    /// most rows).
    package mutating func visit(_ term: [UInt8]) -> Step {
        var termScalars: [UInt32] = []
        var boundaries: [Int] = [0]
        for scalar in String(decoding: term, as: UTF8.self).unicodeScalars {
            termScalars.append(scalar.value)
            boundaries.append(boundaries[boundaries.count - 1] + UTF8.width(scalar))
        }
        var shared = 0
        while shared < min(scalars.count, termScalars.count) && scalars[shared] == termScalars[shared] { shared += 1 }
        shared = min(shared, rows.count - 1)    // a term left by a skip has rows only up to where it died
        scalars = termScalars
        prefixBytes = boundaries
        rows.removeSubrange((shared + 1)...)
        for index in shared..<termScalars.count {
            let row = nextRow(character: index)
            rows.append(row)
            if row.min()! > maximumDistance {
                // Every term that starts with these index + 1 characters is too far.
                return .skip(to: Self.successor(of: Array(term[..<prefixBytes[index + 1]])))
            }
        }
        let distance = rows[rows.count - 1][word.count]
        return distance <= maximumDistance ? .match(distance) : .next
    }

    /// The DP row after the term's character at `index` (rows up to `index` are on the stack).
    private func nextRow(character index: Int) -> [Int] {
        let previous = rows[index]
        let character = scalars[index]
        var row = [Int](repeating: 0, count: word.count + 1)
        row[0] = index + 1
        for column in 1...max(word.count, 1) where column <= word.count {
            let cost = word[column - 1] == character ? 0 : 1
            var best = min(previous[column] + 1, row[column - 1] + 1, previous[column - 1] + cost)
            if index > 0 && column > 1 && word[column - 1] == scalars[index - 1] && word[column - 2] == character {
                best = min(best, rows[index - 1][column - 2] + 1)
            }
            row[column] = best
        }
        return row
    }

    /// The least byte string greater than every string that starts with `prefix` (its last byte
    /// raised; UTF-8 has no 0xFF byte, so no carry is needed for a term).
    package static func successor(of prefix: [UInt8]) -> [UInt8] {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return [0xFF]
    }
}

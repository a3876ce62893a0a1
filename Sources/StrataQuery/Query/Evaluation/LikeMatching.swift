/// A `LIKE` pattern split at its `*`s, matched in time linear in the text: the part before the
/// first `*` must begin the text and the part after the last must end it; each part between is
/// then found left to right, the leftmost occurrence after the previous one (taking the leftmost
/// never loses a match, since a `*` absorbs whatever lies between). A part of literals alone is
/// found by ``KnuthMorrisPratt``, a part with `?` by the bit-parallel shift-and method (one
/// machine word per 64 pattern characters), a part of `?`s alone by counting.
///
/// Elements are the text's characters (grapheme clusters, compared as `Character`s compare), or
/// its bytes when text and pattern are ASCII without a carriage return, where each byte is one
/// character.
package struct LikePattern<Element: Hashable> {
    package enum Token: Equatable {
        case literal(Element)
        case anyOne
    }

    /// Before the first `*`; the whole pattern when it has no `*`.
    package let head: [Token]
    /// Between `*`s, in order.
    package let middle: [[Token]]
    /// After the last `*`; nil when the pattern has no `*`.
    package let tail: [Token]?
    /// How each part of `middle` is searched for, prepared once with the pattern (KMP tables,
    /// shift-and masks), so that matching a text costs nothing per part beyond the search.
    private let searches: [PartSearch]

    /// The search for one part between `*`s.
    private enum PartSearch {
        /// `?`s alone: the part fits wherever enough elements are left.
        case anyOnly
        /// Literals alone.
        case literals(KnuthMorrisPratt<Element>)
        /// Literals and `?`s.
        case mixed(ShiftAnd)
    }

    /// The longest part between `*`s with both `?` and literals that a query accepts: such a
    /// part costs a step per 64 of its characters at each text position.
    package static var maxWildcardPart: Int { 4_096 }

    /// The length of the longest part between `*`s that has both `?` and literals (0 when none).
    package var longestWildcardPart: Int {
        middle.filter { part in part.contains(.anyOne) && part.contains { $0 != .anyOne } }.map(\.count).max() ?? 0
    }

    /// Tokenizes `pattern`: `*` any run, `?` one character, `\` quotes the next one (a final `\`
    /// is itself); `element` converts a pattern character.
    package init(_ pattern: String, element: (Character) -> Element) {
        var parts: [[Token]] = [[]]
        var iterator = pattern.makeIterator()
        while let c = iterator.next() {
            switch c {
            case "*": if !parts[parts.count - 1].isEmpty || parts.count == 1 { parts.append([]) }
            case "?": parts[parts.count - 1].append(.anyOne)
            case "\\": parts[parts.count - 1].append(.literal(element(iterator.next() ?? "\\")))
            default: parts[parts.count - 1].append(.literal(element(c)))
            }
        }
        head = parts[0]
        if parts.count == 1 {
            (middle, tail) = ([], nil)
        } else {
            tail = parts[parts.count - 1]
            middle = parts[1..<(parts.count - 1)].filter { !$0.isEmpty }
        }
        var ignored = 0
        searches = middle.map { part in
            let literals = part.compactMap { token -> Element? in if case .literal(let e) = token { e } else { nil } }
            if literals.isEmpty { return .anyOnly }
            if literals.count == part.count { return .literals(KnuthMorrisPratt(literals, steps: &ignored)) }
            return .mixed(ShiftAnd(part))
        }
    }

    /// Whether `text` as a whole matches, adding the work done to `steps`: at most a few steps per
    /// text element and pattern token, times the words of a `?` part (one per 64 tokens). False
    /// when the query's budget runs out during the search.
    package func matches(_ text: [Element], steps: inout Int) -> Bool {
        guard let tail else { return text.count == head.count && Self.fits(head, text, at: 0, steps: &steps) }
        guard head.count + tail.count <= text.count,
              Self.fits(head, text, at: 0, steps: &steps),
              Self.fits(tail, text, at: text.count - tail.count, steps: &steps) else { return false }
        var position = head.count
        let end = text.count - tail.count
        for (part, search) in zip(middle, searches) {
            guard let found = Self.find(part.count, search, in: text, from: position, end: end, steps: &steps) else { return false }
            position = found + part.count
        }
        return true
    }

    /// Whether `tokens` match `text` at `start` (which leaves room for them).
    private static func fits(_ tokens: [Token], _ text: [Element], at start: Int, steps: inout Int) -> Bool {
        for (offset, token) in tokens.enumerated() {
            steps += 1
            if case .literal(let element) = token, text[start + offset] != element { return false }
        }
        return true
    }

    /// The start of the leftmost occurrence of a part of `length` tokens in `text[start..<end]`.
    private static func find(_ length: Int, _ search: PartSearch, in text: [Element], from start: Int, end: Int, steps: inout Int) -> Int? {
        guard end - start >= length else { return nil }
        switch search {
        case .anyOnly: return start
        case .literals(let searcher): return searcher.firstMatch(in: text, from: start, end: end, steps: &steps)
        case .mixed(let searcher): return searcher.firstMatch(in: text, from: start, end: end, steps: &steps)
        }
    }

    /// Bit-parallel search for a part with `?`s: bit `i` of the state is set when the last `i + 1`
    /// elements read match the part's first `i + 1` tokens; one shift, or and and per word and element.
    private struct ShiftAnd {
        let length: Int
        let words: Int
        /// The masks of the part's literal elements (`masks[slot * words ..< (slot + 1) * words]`),
        /// and at `wildcardSlot` the mask of its `?`s, which any other element gets.
        var masks: [UInt64]
        var slots: [Element: Int] = [:]
        let wildcardSlot: Int

        init(_ part: [Token]) {
            length = part.count
            words = (part.count + 63) / 64
            var distinct: [Element] = []
            for case .literal(let element) in part where slots[element] == nil {
                slots[element] = distinct.count
                distinct.append(element)
            }
            wildcardSlot = distinct.count
            masks = [UInt64](repeating: 0, count: (distinct.count + 1) * words)
            for (index, token) in part.enumerated() {
                let bit = UInt64(1) << UInt64(index % 64)
                switch token {
                case .literal(let element): masks[slots[element]! * words + index / 64] |= bit
                case .anyOne:
                    for slot in 0...wildcardSlot { masks[slot * words + index / 64] |= bit }
                }
            }
        }

        func firstMatch(in text: [Element], from start: Int, end: Int, steps: inout Int) -> Int? {
            var state = [UInt64](repeating: 0, count: words)
            let last = UInt64(1) << UInt64((length - 1) % 64)
            for index in start..<end {
                let base = (slots[text[index]] ?? wildcardSlot) * words
                var carry: UInt64 = 1
                for word in 0..<words {
                    let shifted = (state[word] << 1) | carry
                    carry = state[word] >> 63
                    state[word] = shifted & masks[base + word]
                }
                steps += words
                if state[words - 1] & last != 0 { return index + 1 - length }
                if (index - start + 1) & (QueryBudget.checkInterval - 1) == 0, QueryBudget.matcherMustStop() { return nil }
            }
            return nil
        }
    }
}

/// A `LIKE` pattern prepared once for every text it is matched against: what a query's filter
/// holds (``PreparedPredicate``), so that a record costs time linear in its text alone, not in
/// the pattern too (a pattern of 30,000 `*a` parts was split, and 30,000 searches prepared, for
/// each record). The byte form serves texts that are plain ASCII when the pattern is.
package struct LikeMatcher {
    private let bytes: LikePattern<UInt8>?
    private let characters: LikePattern<Character>

    package init(_ pattern: String) {
        bytes = Self.isPlainASCII(pattern) ? LikePattern<UInt8>(pattern, element: { $0.asciiValue! }) : nil
        characters = LikePattern<Character>(pattern, element: { $0 })
    }

    package static func isPlainASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } }

    /// Whether `string` as a whole matches, adding the work done to `steps`.
    package func matches(_ string: String, steps: inout Int) -> Bool {
        if let bytes, Self.isPlainASCII(string) { return bytes.matches(Array(string.utf8), steps: &steps) }
        return characters.matches(Array(string), steps: &steps)
    }
}

extension PatternMatching {
    /// `*` matches any run of characters, `?` exactly one; `\*`, `\?` and `\\` match themselves.
    /// Time linear in the text (``LikePattern``), once the pattern is prepared (``LikeMatcher``).
    package static func like(_ string: String, pattern: String) -> Bool {
        var steps = 0
        return like(string, pattern: pattern, steps: &steps)
    }

    /// As ``like(_:pattern:)``, adding the work done to `steps`.
    package static func like(_ string: String, pattern: String, steps: inout Int) -> Bool {
        if LikeMatcher.isPlainASCII(string), LikeMatcher.isPlainASCII(pattern) {
            return LikePattern<UInt8>(pattern, element: { $0.asciiValue! }).matches(Array(string.utf8), steps: &steps)
        }
        return LikePattern<Character>(pattern, element: { $0 }).matches(Array(string), steps: &steps)
    }
}

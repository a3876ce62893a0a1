/// Byte-level (code point) substring tests, matching the binary order indexes use.
package enum StringSearch {
    package static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    package static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        text.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Every string contains the empty string.
    package static func contains(_ text: String, _ part: String) -> Bool {
        var steps = 0
        return contains(text, part, steps: &steps)
    }

    /// Whether the UTF-8 bytes of `part` occur in those of `text` (UTF-8 is self-synchronizing,
    /// so a byte match is a match of whole scalars), adding to `steps` the work done: at most
    /// `2 × text bytes + 2 × part bytes` (Knuth–Morris–Pratt), whatever the strings. A query's
    /// budget is checked every ``QueryBudget/checkInterval`` steps; when it runs out, the answer is false.
    package static func contains(_ text: String, _ part: String, steps: inout Int) -> Bool {
        let needle = Array(part.utf8)
        guard !needle.isEmpty else { return true }
        let haystack = Array(text.utf8)
        guard haystack.count >= needle.count else { return false }
        return KnuthMorrisPratt(needle, steps: &steps).firstMatch(in: haystack, from: 0, steps: &steps) != nil
    }
}

/// Linear-time search for a fixed sequence (Knuth–Morris–Pratt): the text is read once, never
/// backing up, so a search costs at most twice the text's length plus twice the needle's.
package struct KnuthMorrisPratt<Element: Equatable> {
    package let needle: [Element]
    /// `border[i]`: the length of the longest proper prefix of `needle[0...i]` that is also its suffix.
    private var border: [Int]

    /// Prepares the search for a non-empty `needle`.
    package init(_ needle: [Element], steps: inout Int) {
        self.needle = needle
        border = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in needle.indices.dropFirst() {
            while length > 0, needle[index] != needle[length] {
                length = border[length - 1]
                steps += 1
            }
            if needle[index] == needle[length] { length += 1 }
            border[index] = length
            steps += 1
        }
    }

    /// The start of the first occurrence of the needle in `text[from...]` that ends at or before
    /// `end` (the text's end when nil); nil when there is none, or when the query's budget ran out.
    package func firstMatch(in text: [Element], from start: Int, end: Int? = nil, steps: inout Int) -> Int? {
        let end = end ?? text.count
        var matched = 0
        var index = start
        while index < end {
            while matched > 0, text[index] != needle[matched] {
                matched = border[matched - 1]
                steps += 1
            }
            if text[index] == needle[matched] {
                matched += 1
                if matched == needle.count { return index + 1 - matched }
            }
            index += 1
            steps += 1
            if index & (QueryBudget.checkInterval - 1) == 0, QueryBudget.matcherMustStop() { return nil }
        }
        return nil
    }
}

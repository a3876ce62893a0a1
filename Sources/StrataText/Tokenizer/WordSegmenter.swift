/// The word boundaries of UAX #29 (Unicode Text Segmentation, rules WB1–WB999) in a text.
///
/// The text's scalars are decoded once, each with its byte offset and its entry of
/// ``WordBreakTable``; ``isBoundary(before:)`` applies the rules between two scalars, looking past
/// the Extend, Format and ZWJ characters that rule WB4 attaches to the character before them.
/// `Tests/StrataTextTests/Tokenizer/WordSegmenterTests.swift` runs the Unicode conformance cases.
struct WordSegmenter {
    /// The byte offset of each scalar in the text, and the text's length after the last.
    private(set) var offsets: [Int] = []
    /// Each scalar's entry of the table.
    private(set) var infos: [WordBreakProperty.Scalar] = []
    /// Each scalar's Word_Break property (unpacked once: the rules read it many times).
    private(set) var properties: [WordBreakProperty] = []
    /// The pair table, read once rather than through its lazy global at every pair.
    private let pairs = Self.pairTable

    /// The segmenter of the valid UTF-8 text `utf8`.
    init(utf8: UnsafeBufferPointer<UInt8>) {
        offsets.reserveCapacity(utf8.count + 1)
        infos.reserveCapacity(utf8.count)
        properties.reserveCapacity(utf8.count)
        let plane = WordBreakProperty.Scalar.basicPlane
        var index = 0
        while index < utf8.count {
            let lead = utf8[index]
            var value = UInt32(lead)
            var length = 1
            if lead >= 0xC0 {
                length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                length = min(length, utf8.count - index)
                value &= lead < 0xE0 ? 0x1F : lead < 0xF0 ? 0x0F : 0x07
                for offset in 1..<max(length, 1) { value = value << 6 | UInt32(utf8[index + offset] & 0x3F) }
            }
            let info = WordBreakProperty.Scalar.of(value, plane: plane)
            offsets.append(index)
            infos.append(info)
            properties.append(info.property)
            index += length
        }
        offsets.append(utf8.count)
    }

    /// The number of scalars.
    var count: Int { properties.count }

    /// The property of the scalar at `index`.
    @inline(__always) func property(_ index: Int) -> WordBreakProperty { properties[index] }

    /// Calls `body` with each segment between two boundaries, as a range of scalar indices.
    func forEachSegment(_ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        var start = 0
        for index in 1..<count where isBoundary(before: index) {
            body(start..<index)
            start = index
        }
        body(start..<count)
    }

    /// True when the text breaks between the scalars at `index - 1` and `index` (0 < index < count).
    func isBoundary(before index: Int) -> Bool {
        let left = property(index - 1), right = property(index)
        if left == .cr && right == .lf { return false }                                     // WB3
        if left.isNewline || right.isNewline { return true }                              // WB3a, WB3b
        if left == .zwj && infos[index].isPictographic { return false }                    // WB3c
        if left == .wSegSpace && right == .wSegSpace { return false }                      // WB3d
        if right.isIgnorable { return false }                                              // WB4
        let before = left.isIgnorable ? effectiveIndex(atOrBefore: index - 1) : index - 1
        let l = property(before)
        // Most pairs are settled by the two properties alone (the pair table, made from the
        // rules below); the others look one character further.
        let pair = pairs[Int(l.rawValue)], bit: UInt32 = 1 << UInt32(right.rawValue)
        if pair.joined & bit != 0 { return false }
        if pair.contextual & bit == 0 { return true }
        return isBoundaryInContext(l: l, r: right, before: before, index: index)
    }

    /// Rules WB5–WB16 for a pair whose answer depends on the characters around it.
    private func isBoundaryInContext(l: WordBreakProperty, r: WordBreakProperty, before: Int, index: Int) -> Bool {
        if l.isLetter && r.isLetter { return false }                                       // WB5
        // The characters after the right one and before the left one; Other (which no rule
        // names) where there is none.
        let rr = nextIndex(after: index).map(property) ?? .other
        let ll = before > 0 && !property(before).isIgnorable ? previousProperty(before: before) : .other
        if l.isLetter && (r == .midLetter || r.isMidNumLetQ) && rr.isLetter { return false }          // WB6
        if ll.isLetter && (l == .midLetter || l.isMidNumLetQ) && r.isLetter { return false }          // WB7
        if l == .hebrewLetter && r == .singleQuote { return false }                        // WB7a
        if l == .hebrewLetter && r == .doubleQuote && rr == .hebrewLetter { return false } // WB7b
        if ll == .hebrewLetter && l == .doubleQuote && r == .hebrewLetter { return false } // WB7c
        if l == .numeric && r == .numeric { return false }                                 // WB8
        if l.isLetter && r == .numeric { return false }                                    // WB9
        if l == .numeric && r.isLetter { return false }                                    // WB10
        if ll == .numeric && (l == .midNum || l.isMidNumLetQ) && r == .numeric { return false }      // WB11
        if l == .numeric && (r == .midNum || r.isMidNumLetQ) && rr == .numeric { return false }      // WB12
        if l == .katakana && r == .katakana { return false }                               // WB13
        if (l.isLetter || l == .numeric || l == .katakana || l == .extendNumLet) && r == .extendNumLet {
            return false                                                                   // WB13a
        }
        if l == .extendNumLet && (r.isLetter || r == .numeric || r == .katakana) { return false } // WB13b
        if l == .regionalIndicator && r == .regionalIndicator {                            // WB15, WB16
            // Regional indicators pair up: break before this one when those before it are even.
            var run = 0
            var at = before
            while property(at) == .regionalIndicator {
                run += 1
                guard at > 0 else { break }
                at = effectiveIndex(atOrBefore: at - 1)
            }
            return run % 2 == 0
        }
        return true                                                                        // WB999
    }

    /// Per left property (by raw value), the right properties (a bit per raw value) after which
    /// WB5–WB13b never break, and those for which rules WB6, WB7, WB7b, WB7c, WB11, WB12, WB15
    /// and WB16 need the characters around the pair.
    private static let pairTable: [(joined: UInt32, contextual: UInt32)] = (0...WordBreakProperty.wSegSpace.rawValue).map { raw in
        let l = WordBreakProperty(rawValue: raw)!
        var joined: UInt32 = 0, contextual: UInt32 = 0
        for rightRaw in 0...WordBreakProperty.wSegSpace.rawValue {
            let r = WordBreakProperty(rawValue: rightRaw)!, bit: UInt32 = 1 << UInt32(rightRaw)
            let alphanumeric = r.isLetter || r == .numeric || r == .katakana
            if (l.isLetter && r.isLetter) || (l == .hebrewLetter && r == .singleQuote) || (l == .numeric && r == .numeric)
                || (l.isLetter && r == .numeric) || (l == .numeric && r.isLetter) || (l == .katakana && r == .katakana)
                || ((l.isLetter || l == .numeric || l == .katakana || l == .extendNumLet) && r == .extendNumLet)
                || (l == .extendNumLet && alphanumeric) {
                joined |= bit
            } else if (l.isLetter && (r == .midLetter || r.isMidNumLetQ)) || ((l == .midLetter || l.isMidNumLetQ) && r.isLetter)
                        || (l == .hebrewLetter && r == .doubleQuote) || (l == .doubleQuote && r == .hebrewLetter)
                        || ((l == .midNum || l.isMidNumLetQ) && r == .numeric) || (l == .numeric && (r == .midNum || r.isMidNumLetQ))
                        || (l == .regionalIndicator && r == .regionalIndicator) {
                contextual |= bit
            }
        }
        return (joined, contextual)
    }

    /// The index of the character that the scalar at `index` belongs to under rule WB4: the first
    /// scalar at or before it that is not Extend, Format or ZWJ, unless the run of those reaches
    /// the start of the text or follows a line break, where its first scalar stands for itself.
    private func effectiveIndex(atOrBefore index: Int) -> Int {
        var at = index
        while at > 0 && property(at).isIgnorable && !property(at - 1).isNewline { at -= 1 }
        return at
    }

    /// The property of the character before the one at `index` (itself a character's first scalar).
    private func previousProperty(before index: Int) -> WordBreakProperty {
        guard index > 0 else { return .other }
        return property(effectiveIndex(atOrBefore: index - 1))
    }

    /// The index of the next character after the scalar at `index`: the first scalar after it that
    /// is not Extend, Format or ZWJ.
    private func nextIndex(after index: Int) -> Int? {
        var at = index + 1
        while at < count && property(at).isIgnorable { at += 1 }
        return at < count ? at : nil
    }
}

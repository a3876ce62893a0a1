/// A code point's Word_Break property (UAX #29), in the order of `tools/generate-word-break-table`.
enum WordBreakProperty: UInt8, Sendable {
    case other, cr, lf, newline, extend, zwj, regionalIndicator, format, katakana, hebrewLetter, aLetter,
         singleQuote, doubleQuote, midNumLet, midLetter, midNum, numeric, extendNumLet, wSegSpace

    /// Extend, Format and ZWJ: rule WB4 attaches them to the character before.
    var isIgnorable: Bool { isIn(1 << 4 | 1 << 5 | 1 << 7) }
    /// ALetter or Hebrew_Letter (AHLetter in the rules).
    var isLetter: Bool { isIn(1 << 9 | 1 << 10) }
    /// CR, LF or Newline: rules WB3a and WB3b break around them.
    var isNewline: Bool { isIn(1 << 1 | 1 << 2 | 1 << 3) }
    /// MidNumLet or Single_Quote (MidNumLetQ in the rules).
    var isMidNumLetQ: Bool { isIn(1 << 11 | 1 << 13) }

    /// Compares raw values (the comparison the rules make per scalar; stated so that no generic
    /// `RawRepresentable` comparison is chosen).
    @inline(__always) static func == (a: WordBreakProperty, b: WordBreakProperty) -> Bool { a.rawValue == b.rawValue }

    /// True when the property's bit is in `set` (a bit per raw value).
    @inline(__always) func isIn(_ set: UInt32) -> Bool { (1 << UInt32(rawValue)) & set != 0 }

    /// What the tokenizer knows of one code point, unpacked from ``WordBreakTable``'s byte.
    struct Scalar: Sendable {
        /// The packed byte: the property in bits 0–4, Extended_Pictographic in bit 5, the run class
        /// in bits 6–7.
        let packed: UInt8

        /// The Word_Break property.
        var property: WordBreakProperty { WordBreakProperty(rawValue: packed & 0x1F) ?? .other }
        /// True for Extended_Pictographic (emoji and other pictographs).
        var isPictographic: Bool { packed & 0x20 != 0 }
        /// A CJK character (Han, Hiragana, Katakana): indexed as overlapping bigrams.
        var isCJK: Bool { packed & 0x40 != 0 }
        /// A character of a script written without spaces between words (Line_Break SA: Thai, Lao,
        /// Khmer, Myanmar, …): a run of them is one token.
        var isComplexContext: Bool { packed & 0x80 != 0 }

        /// The scalar `value`'s entry: a direct lookup below U+10000, a binary search above.
        static func of(_ value: UInt32) -> Scalar { of(value, plane: basicPlane) }

        /// The entry of `value`, given ``basicPlane`` (read once by a caller that looks up many).
        @inline(__always)
        static func of(_ value: UInt32, plane: [UInt8]) -> Scalar {
            if value < 0x10000 { return Scalar(packed: plane[Int(value)]) }
            return Scalar(packed: search(value))
        }

        /// The Basic Multilingual Plane expanded from the boundaries once (64 KiB).
        static let basicPlane: [UInt8] = {
            var plane = [UInt8](repeating: 0, count: 0x10000)
            let boundaries = WordBreakTable.boundaries
            for (index, boundary) in boundaries.enumerated() {
                let start = Int(boundary >> 8)
                guard start < 0x10000 else { break }
                let end = index + 1 < boundaries.count ? min(Int(boundaries[index + 1] >> 8), 0x10000) : 0x10000
                for code in start..<end { plane[code] = UInt8(boundary & 0xFF) }
            }
            return plane
        }()

        static func search(_ value: UInt32) -> UInt8 {
            let boundaries = WordBreakTable.boundaries
            var low = 0, high = boundaries.count
            while high - low > 1 {
                let middle = (low + high) / 2
                if boundaries[middle] >> 8 <= value { low = middle } else { high = middle }
            }
            return UInt8(boundaries[low] & 0xFF)
        }
    }
}

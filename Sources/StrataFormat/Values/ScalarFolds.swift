/// Each scalar's folding as Foundation folds it alone, for the scalars whose folding does not
/// depend on their neighbours: the fast path of ``Collation/fold(_:_:)`` for text that is not ASCII.
///
/// A table is made once per option set, the first time a string that is not ASCII is folded with
/// it, by asking Foundation (``Collation/foldedByFoundation(_:_:)``) for every scalar of
/// ``tabled`` (about 1,900 calls): so the table is always this process's Foundation's, whatever its
/// version. Left out, so that the string goes to Foundation whole: combining marks and the other
/// characters that extend the one before them (their folding depends on that character: Foundation
/// drops a mark after a letter and keeps one with none before it) and scalars whose folding holds one. The scalars of ``identical``
/// (CJK ideographs, kana, Hangul syllables) fold to themselves under every option set; a test
/// checks each of them, and random strings folded both ways.
package struct ScalarFolds: Sendable {
    /// The scalars looked up in the table: Latin-1, Latin Extended-A and -B, IPA, spacing modifiers,
    /// Greek and Coptic, Cyrillic and its supplement; Latin Extended Additional, Greek Extended,
    /// general punctuation (’ among them); halfwidth and fullwidth forms.
    package static let tabled: [ClosedRange<UInt32>] = [0x80...0x52F, 0x1E00...0x206F, 0xFF00...0xFFEF]

    /// Scalars that every option set folds to themselves: kana (without the combining voicing
    /// marks), CJK ideographs of the main block and extension A, Hangul syllables.
    package static let identical: [ClosedRange<UInt32>] = [
        0x3041...0x3096, 0x309B...0x309F, 0x30A1...0x30FA, 0x30FC...0x30FF,
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3,
    ]

    /// Per tabled scalar, in the order of ``tabled``: `offset << 8 | length` of its folding in
    /// ``bytes``, or `UInt32.max` for a scalar left out.
    let entries: [UInt32]
    /// The foldings, UTF-8, one after another.
    let bytes: [UInt8]
    /// True when the option set folds case (ASCII capitals become small letters).
    let caseFolding: Bool

    private static let caseFolds = ScalarFolds(options: .caseInsensitive)
    private static let diacriticFolds = ScalarFolds(options: .diacriticInsensitive)
    private static let caseAndDiacriticFolds = ScalarFolds(options: [.caseInsensitive, .diacriticInsensitive])

    /// The table of a non-empty option set, made at its first use.
    package static func table(for options: StringComparisonOptions) -> ScalarFolds {
        switch (options.contains(.caseInsensitive), options.contains(.diacriticInsensitive)) {
        case (true, false): caseFolds
        case (false, true): diacriticFolds
        default: caseAndDiacriticFolds
        }
    }

    init(options: StringComparisonOptions) {
        var entries: [UInt32] = []
        var bytes: [UInt8] = []
        for range in Self.tabled {
            for value in range {
                guard let scalar = Unicode.Scalar(value), !Self.isMark(scalar) else {
                    entries.append(.max)
                    continue
                }
                let folded = Collation.foldedByFoundation(String(Character(scalar)), options)
                guard !folded.unicodeScalars.contains(where: Self.isMark), folded.utf8.count < 0x100 else {
                    entries.append(.max)
                    continue
                }
                entries.append(UInt32(bytes.count) << 8 | UInt32(folded.utf8.count))
                bytes.append(contentsOf: folded.utf8)
            }
        }
        self.entries = entries
        self.bytes = bytes
        caseFolding = options.contains(.caseInsensitive)
    }

    /// Combining marks, and the other characters that extend the one before them (Grapheme_Extend:
    /// the halfwidth voicing marks U+FF9E and U+FF9F, ZWNJ), which Foundation drops after some
    /// characters and keeps after others.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isGraphemeExtend { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Appends the folding of the valid UTF-8 `utf8` to `folded` and returns true, or returns false
    /// (with some bytes appended) at the first scalar the table does not answer.
    package func append(_ utf8: UnsafeBufferPointer<UInt8>, to folded: inout [UInt8]) -> Bool {
        var index = 0
        let count = utf8.count
        while index < count {
            let lead = utf8[index]
            if lead < 0x80 {
                folded.append(lead >= 0x41 && lead <= 0x5A && caseFolding ? lead | 0x20 : lead)
                index += 1
                continue
            }
            let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            guard index + length <= count else { return false }
            var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | UInt32(utf8[index + offset] & 0x3F) }
            if let entry = entry(of: value) {
                let start = Int(entry >> 8)
                folded.append(contentsOf: bytes[start..<start + Int(entry & 0xFF)])
            } else if Self.identical.contains(where: { $0.contains(value) }) {
                folded.append(contentsOf: utf8[index..<index + length])
            } else {
                return false
            }
            index += length
        }
        return true
    }

    private func entry(of value: UInt32) -> UInt32? {
        var base = 0
        for range in Self.tabled {
            if value < range.lowerBound { return nil }
            if value <= range.upperBound {
                let entry = entries[base + Int(value - range.lowerBound)]
                return entry == .max ? nil : entry
            }
            base += range.count
        }
        return nil
    }
}

import Foundation

/// Unicode folding for `[c]`, `[d]` and `[cd]` comparisons and sorts, in one place so that anything
/// storing folded keys (a folded index, a full-text index's terms) agrees with the filter on every string.
///
/// The folding is Foundation's `folding(options:locale:)` with no locale, so `[c]`, `[d]` and `[cd]`
/// mean what they mean to `NSPredicate` and `String.compare(_:options:)`: full case folding
/// ("Straße" and "STRASSE" both fold to "strasse", "ﬁ" to "fi", final sigma to sigma, "İ" to "i" and
/// a combining dot above); diacritics are the marks canonical decomposition splits off, so letters
/// whose stroke is part of the letter (Ø, Ł, Đ, Ħ) stay distinct from O, L, D, H.
///
/// Two fast paths give Foundation's result without calling it: ASCII strings are folded byte by
/// byte, and strings made only of the scalars in ``ScalarFolds`` (Latin, Greek, Cyrillic, general
/// punctuation, fullwidth forms, CJK ideographs, kana and Hangul syllables, none of them a combining
/// mark) are folded scalar by scalar, each scalar as Foundation folds it alone. Anything else goes
/// to Foundation whole. `Tests/StrataFormatTests/Values/CollationFastPathTests.swift` holds the
/// fast paths to ``foldedByFoundation(_:_:)``.
package enum Collation {
    /// The version of the folding rules, recorded with every folded index
    /// (``IndexDescriptor/foldingVersion``): an index whose keys were folded by other rules is not
    /// used by queries and is rebuilt at the next write to its entity.
    ///
    /// 1: Strata's own folding (uppercased then lowercased; marks dropped; Ø, Ł, Đ, Ħ mapped to
    /// O, L, D, H). 2: Foundation's folding. Any change to what ``fold(_:_:)`` returns for some
    /// string must increase it.
    package static let rulesVersion = 2

    /// `string` folded by `options`.
    package static func fold(_ string: String, _ options: StringComparisonOptions) -> String {
        guard !options.isEmpty else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive),
                  string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
            return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 },
                          as: UTF8.self)
        }
        var folded: [UInt8] = []
        folded.reserveCapacity(string.utf8.count)
        let done = string.utf8.withContiguousStorageIfAvailable {
            ScalarFolds.table(for: options).append($0, to: &folded)
        }
        if done == true { return String(decoding: folded, as: UTF8.self) }
        return foldedByFoundation(string, options)
    }

    /// Appends the folding of the UTF-8 text `utf8` (whole scalars, valid UTF-8) to `folded`: the
    /// same bytes as `fold(String(decoding: utf8, as: UTF8.self), options).utf8`, without making a
    /// `String` when a fast path applies. The full-text tokenizer folds each word through it.
    package static func appendFolded(
        _ utf8: UnsafeBufferPointer<UInt8>, _ options: StringComparisonOptions, to folded: inout [UInt8]
    ) {
        guard !options.isEmpty else { folded.append(contentsOf: utf8); return }
        if utf8.allSatisfy({ $0 < 0x80 }) {
            let lower = options.contains(.caseInsensitive)
            for byte in utf8 { folded.append(lower && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            return
        }
        let mark = folded.count
        if ScalarFolds.table(for: options).append(utf8, to: &folded) { return }
        folded.removeSubrange(mark...)
        folded.append(contentsOf: foldedByFoundation(String(decoding: utf8, as: UTF8.self), options).utf8)
    }

    /// Foundation's folding of the whole string, the general path the fast paths are tested against.
    package static func foldedByFoundation(_ string: String, _ options: StringComparisonOptions) -> String {
        var foundation: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foundation.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foundation.insert(.diacriticInsensitive) }
        return string.folding(options: foundation, locale: nil)
    }
}

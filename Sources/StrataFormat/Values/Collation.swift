import Foundation

/// Unicode folding for `[c]`, `[d]` and `[cd]` comparisons and sorts, in one place so that anything
/// storing folded keys (a folded index) agrees with the filter on every string.
///
/// The folding is Foundation's `folding(options:locale:)` with no locale, so `[c]`, `[d]` and `[cd]`
/// mean what they mean to `NSPredicate` and `String.compare(_:options:)`: full case folding
/// ("Straße" and "STRASSE" both fold to "strasse", "ﬁ" to "fi", final sigma to sigma, "İ" to "i" and
/// a combining dot above); diacritics are the marks canonical decomposition splits off, so letters
/// whose stroke is part of the letter (Ø, Ł, Đ, Ħ) stay distinct from O, L, D, H. ASCII strings
/// take a byte-level fast path with the same result.
package enum Collation {
    /// The version of the folding rules, recorded with every folded index
    /// (``IndexDescriptor/foldingVersion``): an index whose keys were folded by other rules is not
    /// used by queries and is rebuilt at the next write to its entity.
    ///
    /// 1: Strata's own folding (uppercased then lowercased; marks dropped; Ø, Ł, Đ, Ħ mapped to
    /// O, L, D, H). 2: Foundation's folding. Any change to what ``fold(_:_:)`` returns for some
    /// string must increase it.
    package static let rulesVersion = 2

    package static func fold(_ string: String, _ options: StringComparisonOptions) -> String {
        guard !options.isEmpty else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive),
                  string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
            return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 },
                          as: UTF8.self)
        }
        var foundation: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foundation.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foundation.insert(.diacriticInsensitive) }
        return string.folding(options: foundation, locale: nil)
    }
}

/// How strings compare: `[c]` ignores case, `[d]` ignores diacritics, both as Foundation's
/// `folding(options:locale:)` with no locale folds them.
public struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: letters compare without case.
    public static let caseInsensitive = StringComparisonOptions(rawValue: 1)
    /// `[d]`: letters compare without diacritics.
    public static let diacriticInsensitive = StringComparisonOptions(rawValue: 2)
    /// `[t]`, on a full-text `SEARCH` only: words of 5+ letters also match indexed words one
    /// edit away, words of 9+ letters two edits away.
    public static let typoTolerant = StringComparisonOptions(rawValue: 4)
}

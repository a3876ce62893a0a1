import Foundation

/// How an index compares strings.
public enum IndexCollation: String, Sendable, Codable, Hashable {
    /// Bytewise UTF-8: Unicode code point order.
    case binary
    /// Case folded (`[c]`), by Unicode full case mapping, not ASCII only.
    case caseInsensitive
    /// Case and diacritics folded (`[cd]`) as Foundation folds them: "Fünke" matches "funke",
    /// "ÉLAN" matches "elan", "Ørsted" does not match "orsted" (see `Collation`).
    case caseAndDiacriticInsensitive

    /// The string comparison options this collation answers.
    public var options: StringComparisonOptions {
        switch self {
        case .binary: []
        case .caseInsensitive: [.caseInsensitive]
        case .caseAndDiacriticInsensitive: [.caseInsensitive, .diacriticInsensitive]
        }
    }

    /// The marker in index names and explain output: "", "[c]", "[cd]".
    public var marker: String {
        switch self {
        case .binary: ""
        case .caseInsensitive: "[c]"
        case .caseAndDiacriticInsensitive: "[cd]"
        }
    }
}

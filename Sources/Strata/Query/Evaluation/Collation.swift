import Foundation

/// Unicode folding for `[c]`, `[d]` and `[cd]` comparisons and sorts, in one place so that anything
/// storing folded keys (a case-insensitive index) can agree with the filter on every string.
///
/// `[c]` maps to lowercase after uppercasing, which approximates full Unicode case folding
/// ("Straße" and "STRASSE" both fold to "strasse", final sigma folds like sigma). `[d]` applies
/// canonical decomposition, drops combining marks and recomposes, plus a few letters whose stroke is
/// not a combining mark (ø, ł, đ, ħ). ASCII strings take a byte-level fast path.
package enum Collation {
    package static func fold(_ string: String, _ options: StringComparisonOptions) -> String {
        guard !options.isEmpty else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive),
                  string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
            return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 },
                          as: UTF8.self)
        }
        var folded = string
        if options.contains(.caseInsensitive) {
            folded = folded.uppercased().lowercased()
        }
        if options.contains(.diacriticInsensitive) {
            folded = stripDiacritics(folded)
        }
        return folded
    }

    private static func stripDiacritics(_ string: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in string.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark:
                continue
            default:
                scalars.append(strokeFree[scalar] ?? scalar)
            }
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// Letters with a stroke or slash that Unicode does not decompose, but that people read as the
    /// plain letter.
    private static let strokeFree: [Unicode.Scalar: Unicode.Scalar] = [
        "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H",
    ]
}

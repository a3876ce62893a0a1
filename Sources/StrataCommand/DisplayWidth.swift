/// The columns text takes on a terminal, measured per grapheme cluster (what a person sees as one
/// character): East Asian wide and fullwidth characters and emoji take 2, combining marks and
/// other zero-width characters 0, everything else 1. Tables pad and cut by this width, never by
/// `Character` or UTF-16 counts.
extension Character {
    var displayWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F, scalars.count == 1 { return first.value < 0x20 ? 0 : 1 }
        if String.isControl(first) { return 0 }
        // Emoji: presented as emoji by default, asked to be (U+FE0F), or a flag (regional indicators).
        if first.properties.isEmojiPresentation || (0x1F1E6...0x1F1FF).contains(first.value)
            || (first.properties.isEmoji && scalars.contains { $0.value == 0xFE0F }) {
            return 2
        }
        if Self.isWide(first.value) { return 2 }
        if scalars.allSatisfy(Self.isZeroWidth) { return 0 }
        return 1
    }

    /// Combining marks, format characters (zero-width space and joiners, direction marks) and
    /// variation selectors.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return (0xFE00...0xFE0F).contains(scalar.value) || (0x1160...0x11FF).contains(scalar.value)
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    /// The columns the text takes on a terminal (``Character/displayWidth``, summed).
    var displayWidth: Int {
        var width = 0
        for character in self { width += character.displayWidth }
        return width
    }

    /// The text cut to at most `columns` columns, ending in `…` when cut.
    func clipped(toColumns columns: Int) -> String {
        guard displayWidth > columns else { return self }
        var result = ""
        var width = 0
        for character in self {
            let next = character.displayWidth
            guard width + next <= columns - 1 else { break }
            result.append(character)
            width += next
        }
        return result + "…"
    }
}

/// Control characters from stored data made visible, so that a value imported from anywhere
/// cannot move the cursor, retitle the window or clear the screen of the person reading it (`strata`
/// and `strata-studio` both write them).
extension String {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The text with every control character but those in `kept` written as `\u{1B}`.
    public func escapingControlCharacters(keeping kept: Set<Unicode.Scalar> = []) -> String {
        guard unicodeScalars.contains(where: { Self.isControl($0) && !kept.contains($0) }) else { return self }
        var text = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if Self.isControl(scalar), !kept.contains(scalar) {
                text.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                text.append(scalar)
            }
        }
        return String(text)
    }
}

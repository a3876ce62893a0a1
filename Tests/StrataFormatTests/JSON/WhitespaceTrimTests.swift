import Foundation
import Testing
@testable import StrataFormat

/// `trimmingWhitespace` (what numbers and keys given as text are trimmed with) is Foundation's
/// `trimmingCharacters(in: .whitespaces)`, whatever is at either end.
@Suite struct WhitespaceTrimTests {
    @Test func itTrimsWhatFoundationTrims() {
        var ends = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        ends += ["\u{A0}", "\u{2003}", "\u{3000}", "\u{85}", "\u{200B}", "é", "🙂", "\u{301}"]
        for end in ends {
            for text in [end, end + "12" + end, end + "12", "12" + end, end + end + "x" + end + end] {
                #expect(text.trimmingWhitespace == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            }
        }
        #expect("".trimmingWhitespace == "")
    }
}

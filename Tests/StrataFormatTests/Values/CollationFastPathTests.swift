import Foundation
import Testing
import TestSupport
@testable import StrataFormat

/// The fast paths of `Collation.fold` (ASCII bytes, then the per-scalar table `ScalarFolds`) and the
/// UTF-8 entry `appendFolded` give exactly what Foundation's folding of the whole string gives.
@Suite struct CollationFastPathTests {
    static let optionSets: [StringComparisonOptions] = [[.caseInsensitive], [.diacriticInsensitive],
                                                         [.caseInsensitive, .diacriticInsensitive]]

    static func folded(_ text: String, _ options: StringComparisonOptions) -> String {
        var bytes: [UInt8] = []
        Array(text.utf8).withUnsafeBufferPointer { Collation.appendFolded($0, options, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func scalars(_ string: String) -> [UInt32] { string.unicodeScalars.map(\.value) }

    @Test(arguments: optionSets)
    func everyIdenticalScalarFoldsToItselfInFoundation(options: StringComparisonOptions) {
        var differing: [UInt32] = []
        for range in ScalarFolds.identical {
            for value in range {
                let text = String(Unicode.Scalar(value)!)
                if Collation.foldedByFoundation(text, options) != text { differing.append(value) }
            }
        }
        #expect(differing.isEmpty, "fold to something else: \(differing.prefix(10).map { String($0, radix: 16) })")
    }

    @Test(arguments: optionSets)
    func everyTabledScalarFoldsAsFoundationFoldsIt(options: StringComparisonOptions) {
        for range in ScalarFolds.tabled {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let text = String(scalar)
                let expected = Self.scalars(Collation.foldedByFoundation(text, options))
                #expect(Self.scalars(Collation.fold(text, options)) == expected, "U+\(String(value, radix: 16))")
                #expect(Self.scalars(Self.folded(text, options)) == expected, "U+\(String(value, radix: 16))")
            }
        }
    }

    /// Random strings of ASCII, tabled and identical scalars, with a combining mark now and then (which
    /// sends the string to Foundation) and the strings whose folding people get wrong.
    @Test(arguments: optionSets)
    func randomStringsFoldAsFoundationFoldsThem(options: StringComparisonOptions) {
        var random = SeededGenerator(seed: 0xF01D + UInt64(options.rawValue))
        let pools: [ClosedRange<UInt32>] = ScalarFolds.tabled + ScalarFolds.identical + [0x20...0x7E, 0x20...0x7E]
        let special: [String] = ["ß", "İ", "ı", "Σ", "ς", "ﬁ", "Ø", "ŉ", "ǰ", "ᾳ", "ΐ", "\u{301}", "\u{345}", "\u{3099}",
                                 "’", "Ａ", "ｶ", "\u{FF9E}", "Ǆ", "ǅ", "K", "Å", "\u{0}", "😀", "e\u{301}", "한"]
        for _ in 0..<4_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: text += special.randomElement(using: &random)!
                default:
                    let pool = pools.randomElement(using: &random)!
                    if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &random)) { text.unicodeScalars.append(scalar) }
                }
            }
            let expected = Self.scalars(Collation.foldedByFoundation(text, options))
            #expect(Self.scalars(Collation.fold(text, options)) == expected, "\(text.debugDescription)")
            #expect(Self.scalars(Self.folded(text, options)) == expected, "\(text.debugDescription)")
        }
    }

    @Test func theTableAnswersLettersAndLeavesMarksToFoundation() {
        let table = ScalarFolds.table(for: [.caseInsensitive, .diacriticInsensitive])
        var out: [UInt8] = []
        #expect(Array("Fünke ÉLAN Straße 東京".utf8).withUnsafeBufferPointer { table.append($0, to: &out) })
        #expect(String(decoding: out, as: UTF8.self) == "funke elan strasse 東京")
        out = []
        #expect(!Array("e\u{301}".utf8).withUnsafeBufferPointer { table.append($0, to: &out) })
        #expect(Collation.fold("e\u{301}", [.caseInsensitive, .diacriticInsensitive]) == "e")
        #expect(Self.folded("\u{301}", [.caseInsensitive, .diacriticInsensitive]) == "\u{301}")
    }
}

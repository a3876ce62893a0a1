import Testing
@testable import StrataText

/// UAX #29's word boundaries: every conformance case of the Unicode version the table was made
/// from, and the property lookups the rules depend on.
@Suite struct WordSegmenterTests {
    /// The boundaries the segmenter finds in `scalars`, as the scalar indices where a segment starts
    /// (after the first).
    static func boundaries(_ scalars: [Unicode.Scalar]) -> [Int] {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        var found: [Int] = []
        Array(text.utf8).withUnsafeBufferPointer { utf8 in
            let segmenter = WordSegmenter(utf8: utf8)
            #expect(segmenter.count == scalars.count)
            segmenter.forEachSegment { range in if range.lowerBound > 0 { found.append(range.lowerBound) } }
        }
        return found
    }

    @Test func theTestCasesAreOfTheTablesUnicodeVersion() {
        #expect(WordBreakTestCases.unicodeVersion == WordBreakTable.unicodeVersion)
    }

    @Test func everyConformanceCaseBreaksExactlyWhereUnicodeSays() {
        let cases = WordBreakTestCases.text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(cases.count > 1_800)
        var failures = 0
        for line in cases {
            var scalars: [Unicode.Scalar] = []
            var expected: [Int] = []
            var hex = ""
            for character in line {
                if character == "/" || character == "x" {
                    scalars.append(Unicode.Scalar(UInt32(hex, radix: 16)!)!)
                    hex = ""
                    if character == "/" { expected.append(scalars.count) }
                } else {
                    hex.append(character)
                }
            }
            scalars.append(Unicode.Scalar(UInt32(hex, radix: 16)!)!)
            let found = Self.boundaries(scalars)
            if found != expected {
                failures += 1
                if failures <= 10 { Issue.record("\(line): expected breaks at \(expected), found \(found)") }
            }
        }
        #expect(failures == 0)
    }

    @Test func propertiesOfCommonCharactersAreThoseOfTheStandard() {
        #expect(WordBreakProperty.Scalar.of(0x41).property == .aLetter)
        #expect(WordBreakProperty.Scalar.of(0x30).property == .numeric)
        #expect(WordBreakProperty.Scalar.of(0x5F).property == .extendNumLet)
        #expect(WordBreakProperty.Scalar.of(0x2E).property == .midNumLet)
        #expect(WordBreakProperty.Scalar.of(0x301).property == .extend)
        #expect(WordBreakProperty.Scalar.of(0x6771).isCJK)
        #expect(WordBreakProperty.Scalar.of(0x3042).isCJK)
        #expect(WordBreakProperty.Scalar.of(0x30AB).isCJK && WordBreakProperty.Scalar.of(0x30AB).property == .katakana)
        #expect(!WordBreakProperty.Scalar.of(0xAC00).isCJK && WordBreakProperty.Scalar.of(0xAC00).property == .aLetter)
        #expect(WordBreakProperty.Scalar.of(0x0E01).isComplexContext)
        #expect(WordBreakProperty.Scalar.of(0x1F600).isPictographic)
        #expect(WordBreakProperty.Scalar.of(0x20000).isCJK)
        #expect(WordBreakProperty.Scalar.of(0x1F1E6).property == .regionalIndicator)
    }
}

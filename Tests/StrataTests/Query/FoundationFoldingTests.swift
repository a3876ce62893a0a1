import Foundation
import Testing
import TestSupport
@testable import Strata

/// Strings whose folding people get wrong: letters with a stroke that Unicode does not decompose,
/// ligatures, sharp s, Turkish dotted and dotless i, Greek final sigma, combining and enclosing
/// marks (leading ones too), compatibility characters, and plain ASCII.
enum FoldingTable {
    static let strings = [
        "Ørsted", "Orsted", "orsted", "ØRSTED", "ørsted", "Łódź", "Lodz", "łodz", "Đorđe", "Dorde", "đorđe",
        "Ħamrun", "Hamrun", "ħamrun", "Straße", "STRASSE", "strasse", "ẞ", "ß", "ss", "ﬁle", "file", "FILE", "ﬃ",
        "İstanbul", "istanbul", "ıstanbul", "ISTANBUL", "i\u{307}stanbul", "ΣΊΣΥΦΟΣ", "σίσυφος", "σισυφοσ", "ς", "Σ",
        "e\u{301}", "é", "E", "e", "Fünke", "Funke", "fu\u{308}nke", "FÜNKE", "\u{300}a", "\u{300}", "a\u{300}\u{300}",
        "à", "a", "Å", "Å", "å", "ǅ", "ǆ", "Ǆ", "ǰ", "ᾈ", "ᾳ", "ΐ", "≠", "=", "a\u{20DD}", "x\u{0489}", "ש\u{05C1}",
        "Ａ", "ａ", "K", "k", "Ω", "ω", "ſ", "Ĳ", "ĳ", "Æ", "æ", "Œ", "œ", "Þ", "þ", "한국어", "\u{1100}\u{1161}",
        "Hello World", "hello world", "", "a\u{0}b", "Zed", "zed",
    ]

    static let optionSets: [StringComparisonOptions] = [[.caseInsensitive], [.diacriticInsensitive],
                                                         [.caseInsensitive, .diacriticInsensitive]]

    static func foundationOptions(_ options: StringComparisonOptions) -> String.CompareOptions {
        var result: String.CompareOptions = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { result.insert(.diacriticInsensitive) }
        return result
    }
}

@Suite struct FoundationFoldingTests {
    @Test(arguments: FoldingTable.optionSets)
    func everyStringOfTheTableFoldsAsFoundationFoldsIt(options: StringComparisonOptions) {
        for string in FoldingTable.strings {
            let expected = string.folding(options: FoldingTable.foundationOptions(options), locale: nil)
            #expect(Array(Collation.fold(string, options).unicodeScalars) == Array(expected.unicodeScalars),
                    "\(string.debugDescription) folded with \(options.rawValue)")
        }
    }

    /// Foundation's two APIs disagree on a string of nothing but a combining mark: `folding` keeps
    /// a mark with no letter before it, `compare` ignores it (so "\u{300}" is "" to it). Strata
    /// follows `folding`, whose results its indexes store.
    static func isLoneMarkAgainstEmpty(_ a: String, _ b: String) -> Bool {
        Set([a, b]) == ["\u{300}", ""]
    }

    @Test(arguments: FoldingTable.optionSets)
    func twoStringsFoldEqualExactlyWhenFoundationComparesThemAsTheSame(options: StringComparisonOptions) {
        for a in FoldingTable.strings {
            for b in FoldingTable.strings where !Self.isLoneMarkAgainstEmpty(a, b) || !options.contains(.diacriticInsensitive) {
                let same = a.compare(b, options: FoldingTable.foundationOptions(options)) == .orderedSame
                #expect((Collation.fold(a, options) == Collation.fold(b, options)) == same,
                        "\(a.debugDescription) and \(b.debugDescription) with \(options.rawValue)")
            }
        }
    }

    @Test func lettersWithAStrokeAreNotTheirPlainLetters() {
        for (stroked, plain) in [("Ørsted", "Orsted"), ("Łodz", "Lodz"), ("Đorđe", "Dorde"), ("Ħamrun", "Hamrun")] {
            #expect(Collation.fold(stroked, [.caseInsensitive, .diacriticInsensitive])
                    != Collation.fold(plain, [.caseInsensitive, .diacriticInsensitive]))
        }
        #expect(Collation.fold("Łódź", [.caseInsensitive, .diacriticInsensitive]) == "łodz")
    }
}

/// Names with a folded index, and the same names without one, to run one query both ways.
struct FoldedName: Record, Equatable {
    var id: Int64
    var name: String
    static let primaryKey = \FoldedName.id
    static var entityName: String { "FoldedName" }
    static let indexes: [IndexDefinition<FoldedName>] = [.index(\.name, collation: .caseAndDiacriticInsensitive)]
}

struct PlainName: Record, Equatable {
    var id: Int64
    var name: String
    static let primaryKey = \PlainName.id
    static var entityName: String { "PlainName" }
}

@Suite struct FoldedIndexAgreementTests {
    @Test func theIssuesExampleFindsOnlyTheUnstrokedName() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert([FoldedName(id: 1, name: "Ørsted"), FoldedName(id: 2, name: "Orsted")])
            try tx.insert([PlainName(id: 1, name: "Ørsted"), PlainName(id: 2, name: "Orsted")])
        }
        try store.read { tx in
            let indexed = try tx.query(FoldedName.self).where("name ==[cd] 'orsted'").using(index: "name[cd]")
            #expect(try indexed.explain().description.contains("name[cd]"))
            #expect(try indexed.ids() == [2])
            #expect(try tx.query(PlainName.self).where("name ==[cd] 'orsted'").ids() == [2])
            #expect(try tx.query(FoldedName.self).where("name ==[cd] 'ørsted'").ids() == [1])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aFoldedIndexAndAFullScanReturnTheSameRowsForEveryStringOfTheTable() throws {
        let (store, dir) = try makeStore()
        let names = FoldingTable.strings
        try store.write { tx in
            try tx.insert(names.indices.map { FoldedName(id: Int64($0), name: names[$0]) })
            try tx.insert(names.indices.map { PlainName(id: Int64($0), name: names[$0]) })
        }
        try store.read { tx in
            for probe in names {
                for format in ["name ==[cd] %@", "name BEGINSWITH[cd] %@", "name IN[cd] {%@, 'zed'}"] {
                    let indexed = try tx.query(FoldedName.self).where(format, probe).using(index: "name[cd]")
                    let scanned = try tx.query(PlainName.self).where(format, probe)
                    #expect(try indexed.explain().description.contains("name[cd]"), "\(format) \(probe.debugDescription)")
                    #expect(try indexed.ids() == scanned.ids(), "\(format) with \(probe.debugDescription)")
                }
                // And both agree with Foundation's comparison.
                let same = names.indices.filter {
                    !FoundationFoldingTests.isLoneMarkAgainstEmpty(names[$0], probe)
                        && names[$0].compare(probe, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
                }.map(Int64.init)
                #expect(try tx.query(FoldedName.self).where("name ==[cd] %@", probe).ids() == same, "\(probe.debugDescription)")
            }
            #expect(try tx.verifyIndexes(entity: "FoldedName").isConsistent)
        }
        withExtendedLifetime(dir) {}
    }
}

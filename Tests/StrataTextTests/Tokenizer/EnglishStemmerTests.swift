import Testing
@testable import StrataText

/// The English (Porter2) stemmer against the Snowball project's published vocabulary (a sample of
/// it, `EnglishStemmerVocabulary`), and the rules that matter most to a reader of the code.
@Suite struct EnglishStemmerTests {
    @Test func everySampledWordOfThePublishedVocabularyGetsItsPublishedStem() {
        let entries = EnglishStemmerVocabulary.text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(entries.count > 5_000)
        var wrong: [String] = []
        for entry in entries {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            let word = String(parts[0]), expected = String(parts.count == 2 ? parts[1] : parts[0])
            let stem = EnglishStemmer.stem(word)
            if stem != expected { wrong.append("\(word): \(stem), not \(expected)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(20))")
    }

    @Test func theDefinitionsExamplesStemAsItSays() {
        let examples = [
            ("running", "run"), ("hopping", "hop"), ("hoping", "hope"), ("luxuriating", "luxuri"), ("ties", "tie"),
            ("cries", "cri"), ("gas", "gas"), ("gaps", "gap"), ("kiwis", "kiwi"), ("dying", "die"), ("lying", "lie"),
            ("herring", "herring"), ("inning", "inning"), ("evening", "evening"), ("generate", "generat"),
            ("generously", "generous"), ("succeed", "succeed"), ("proceeded", "proceed"), ("agreed", "agre"),
            ("cry", "cri"), ("by", "by"), ("say", "say"), ("skies", "sky"), ("news", "news"), ("as", "as"),
            ("connections", "connect"), ("university", "universiti"), ("universal", "universal"),
            ("geologist", "geolog"), ("geology", "geolog"), ("'tis", "tis"), ("dog's", "dog"), ("dogs'", "dog"),
            ("yellow", "yellow"), ("sayings", "say"), ("past", "past"), ("pasted", "paste"), ("paste", "paste"),
        ]
        for (word, stem) in examples { #expect(EnglishStemmer.stem(word) == stem, "\(word)") }
    }

    @Test func wordsWithOtherCharactersAreLeftAlone() {
        for word in ["Running", "v1.2.3", "snake_case", "café", "3.14", ""] { #expect(EnglishStemmer.stem(word) == word) }
    }
}

/// The English (Porter2) stemmer of the Snowball project, as its published definition states it
/// (Snowball 3.1: the `inter` region exception, `past`, and the `eed` and `ing` exceptions in their
/// rules), written from that definition for lower-case ASCII words.
///
/// A word of lower-case letters and apostrophes maps to its stem (`"running"` → `"run"`,
/// `"generously"` → `"generous"`); the tokenizer passes it only such words, already folded.
/// `Tests/StrataTextTests/Tokenizer/EnglishStemmerTests.swift` checks it against a sample of the
/// algorithm's published vocabulary with its stems.
///
/// Terms of the definition, as the code uses them: vowels are a e i o u y; `Y` marks a y that acts
/// as a consonant (initial, or after a vowel); R1 is the part after the first non-vowel that
/// follows a vowel (or after one of the listed prefixes), R2 the same taken again inside R1.
package enum EnglishStemmer {
    /// The stem of `word` (lower-case ASCII letters and apostrophes; anything else is returned as it is).
    package static func stem(_ word: String) -> String {
        let bytes = Array(word.utf8)
        guard bytes.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x27 }) else { return word }
        return String(decoding: stem(bytes), as: UTF8.self)
    }

    /// The stem of the lower-case ASCII word `word`.
    package static func stem(_ word: [UInt8]) -> [UInt8] {
        if let exception = exceptions[word] { return exception }
        guard word.count > 2 else { return word }
        var stemmer = Stemming(word)
        stemmer.step1a()
        stemmer.step1b()
        stemmer.step1c()
        stemmer.step2()
        stemmer.step3()
        stemmer.step4()
        stemmer.step5()
        return stemmer.word.map { $0 == y ? 0x79 : $0 }
    }

    /// Whole words with a stem of their own, or none.
    static let exceptions: [[UInt8]: [UInt8]] = {
        var table: [[UInt8]: [UInt8]] = [:]
        for (word, stem) in [("skis", "ski"), ("skies", "sky"), ("idly", "idl"), ("gently", "gentl"), ("ugly", "ugli"),
                             ("early", "earli"), ("only", "onli"), ("singly", "singl")] {
            table[Array(word.utf8)] = Array(stem.utf8)
        }
        for word in ["sky", "news", "howe", "atlas", "cosmos", "bias", "andes"] { table[Array(word.utf8)] = Array(word.utf8) }
        return table
    }()

    /// Prefixes after which R1 starts, whatever their letters.
    static let regionPrefixes = ["gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter"]
        .map { Array($0.utf8) }

    /// The marked consonant y.
    static let y: UInt8 = 0x59

    static func isVowel(_ letter: UInt8) -> Bool {
        switch letter {
        case 0x61, 0x65, 0x69, 0x6F, 0x75, 0x79: true
        default: false
        }
    }

    /// The letters of a valid li-ending: c d e g h k m n r t.
    static func isLiEnding(_ letter: UInt8) -> Bool { Array("cdeghkmnrt".utf8).contains(letter) }

    /// The doubles bb dd ff gg mm nn pp rr tt.
    static func isDouble(_ letter: UInt8) -> Bool { Array("bdfgmnprt".utf8).contains(letter) }
}

/// One word being stemmed: its letters and its regions.
struct Stemming {
    var word: [UInt8]
    /// Where R1 and R2 start (the word's length when empty); set once, before any step.
    let r1: Int
    let r2: Int

    init(_ input: [UInt8]) {
        var word = input
        if word.first == 0x27 { word.removeFirst() }
        if word.first == 0x79 { word[0] = EnglishStemmer.y }
        for index in word.indices.dropFirst() where word[index] == 0x79 && EnglishStemmer.isVowel(word[index - 1]) {
            word[index] = EnglishStemmer.y
        }
        self.word = word
        let prefix = EnglishStemmer.regionPrefixes.first { word.starts(with: $0) }
        let r1 = prefix?.count ?? Self.regionStart(in: word, from: 0)
        self.r1 = r1
        r2 = r1 < word.count ? Self.regionStart(in: word, from: r1) : word.count
    }

    /// The index after the first non-vowel that follows a vowel, from `start` on; the word's length
    /// when there is none.
    static func regionStart(in word: [UInt8], from start: Int) -> Int {
        var index = start
        while index < word.count && !EnglishStemmer.isVowel(word[index]) { index += 1 }
        while index < word.count && EnglishStemmer.isVowel(word[index]) { index += 1 }
        return index < word.count ? index + 1 : word.count
    }

    func ends(with suffix: String) -> Bool { word.count >= suffix.utf8.count && word.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) }

    /// The longest of `suffixes` the word ends with.
    func longest(of suffixes: [String]) -> String? {
        suffixes.filter { ends(with: $0) }.max { $0.utf8.count < $1.utf8.count }
    }

    mutating func replace(_ suffix: String, with replacement: String) {
        word.removeLast(suffix.utf8.count)
        word.append(contentsOf: replacement.utf8)
    }

    func hasVowel(before end: Int) -> Bool { word[..<end].contains(where: EnglishStemmer.isVowel) }

    /// True when the letters before `end` end with a short syllable: a non-vowel other than w, x or
    /// Y after a vowel after a non-vowel; a non-vowel after a vowel that starts the word; or `past`.
    func endsWithShortSyllable(at end: Int) -> Bool {
        let isVowel = EnglishStemmer.isVowel
        if end >= 3, !isVowel(word[end - 1]), ![0x77, 0x78, EnglishStemmer.y].contains(word[end - 1]),
           isVowel(word[end - 2]), !isVowel(word[end - 3]) { return true }
        if end == 2, !isVowel(word[1]), isVowel(word[0]) { return true }
        return end >= 4 && word[end - 4..<end].elementsEqual("past".utf8)
    }

    /// Step 0 and 1a: apostrophe endings, then plurals.
    mutating func step1a() {
        if let suffix = longest(of: ["'", "'s", "'s'"]) { word.removeLast(suffix.utf8.count) }
        switch longest(of: ["sses", "ied", "ies", "s", "us", "ss"]) {
        case "sses": replace("sses", with: "ss")
        case let suffix? where suffix == "ied" || suffix == "ies":
            replace(suffix, with: word.count - 3 >= 2 ? "i" : "ie")
        case "s":
            // The letter before the s does not count; a vowel before that does.
            if word.count >= 3 && hasVowel(before: word.count - 2) { word.removeLast() }
        default: break
        }
    }

    /// Step 1b: -eed, -ed and -ing endings, with the word's ending put right after them.
    mutating func step1b() {
        guard let suffix = longest(of: ["eed", "eedly", "ed", "edly", "ing", "ingly"]) else { return }
        let start = word.count - suffix.utf8.count
        let stem = word[..<start]
        switch suffix {
        case "eed", "eedly":
            if start >= r1 && !["proc", "exc", "succ"].contains(where: { stem.elementsEqual($0.utf8) }) {
                replace(suffix, with: "ee")
            }
            return
        case "ing":
            if stem.count == 2 && stem.last == 0x79 && !EnglishStemmer.isVowel(stem[0]) {
                word.removeLast(4)
                word.append(contentsOf: "ie".utf8)
                return
            }
            if ["inn", "out", "cann", "herr", "earr", "even"].contains(where: { stem.elementsEqual($0.utf8) }) { return }
        default: break
        }
        guard hasVowel(before: start) else { return }
        word.removeLast(suffix.utf8.count)
        if ends(with: "at") || ends(with: "bl") || ends(with: "iz") {
            word.append(0x65)
        } else if word.count >= 2, word[word.count - 1] == word[word.count - 2], EnglishStemmer.isDouble(word[word.count - 1]) {
            if !(word.count == 3 && [0x61, 0x65, 0x6F].contains(word[0])) { word.removeLast() }
        } else if r1 == word.count && endsWithShortSyllable(at: word.count) {
            word.append(0x65)
        }
    }

    /// Step 1c: a final y after a non-vowel that is not the first letter becomes i.
    mutating func step1c() {
        guard let last = word.last, last == 0x79 || last == EnglishStemmer.y, word.count >= 3,
              !EnglishStemmer.isVowel(word[word.count - 2]) else { return }
        word[word.count - 1] = 0x69
    }

    /// Step 2: derivational endings in R1.
    mutating func step2() {
        let rules: [(String, String)] = [
            ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("abli", "able"), ("entli", "ent"),
            ("izer", "ize"), ("ization", "ize"), ("ational", "ate"), ("ation", "ate"), ("ator", "ate"),
            ("alism", "al"), ("aliti", "al"), ("alli", "al"), ("fulness", "ful"), ("ousli", "ous"),
            ("ousness", "ous"), ("iveness", "ive"), ("iviti", "ive"), ("biliti", "ble"), ("bli", "ble"),
            ("ogist", "og"), ("ogi", "og"), ("fulli", "ful"), ("lessli", "less"), ("li", ""),
        ]
        guard let suffix = longest(of: rules.map(\.0)), word.count - suffix.utf8.count >= r1 else { return }
        let before = word.count - suffix.utf8.count - 1
        switch suffix {
        case "ogi": if before >= 0 && word[before] == 0x6C { replace(suffix, with: "og") }
        case "li": if before >= 0 && EnglishStemmer.isLiEnding(word[before]) { word.removeLast(2) }
        default: replace(suffix, with: rules.first { $0.0 == suffix }!.1)
        }
    }

    /// Step 3: more derivational endings in R1 (-ative in R2).
    mutating func step3() {
        let rules: [(String, String)] = [
            ("tional", "tion"), ("ational", "ate"), ("alize", "al"), ("icate", "ic"), ("iciti", "ic"),
            ("ical", "ic"), ("ful", ""), ("ness", ""), ("ative", ""),
        ]
        guard let suffix = longest(of: rules.map(\.0)) else { return }
        let start = word.count - suffix.utf8.count
        guard start >= r1, suffix != "ative" || start >= r2 else { return }
        replace(suffix, with: rules.first { $0.0 == suffix }!.1)
    }

    /// Step 4: endings deleted in R2 (-ion after s or t).
    mutating func step4() {
        let suffixes = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate",
                        "iti", "ous", "ive", "ize", "ion"]
        guard let suffix = longest(of: suffixes) else { return }
        let start = word.count - suffix.utf8.count
        guard start >= r2 else { return }
        if suffix == "ion" && !(start > 0 && (word[start - 1] == 0x73 || word[start - 1] == 0x74)) { return }
        word.removeLast(suffix.utf8.count)
    }

    /// Step 5: a final e in R2, or in R1 after no short syllable; a final l after l in R2.
    mutating func step5() {
        guard let last = word.last else { return }
        let start = word.count - 1
        if last == 0x65 {
            if start >= r2 || (start >= r1 && !endsWithShortSyllable(at: start)) { word.removeLast() }
        } else if last == 0x6C {
            if start >= r2 && start > 0 && word[start - 1] == 0x6C { word.removeLast() }
        }
    }
}

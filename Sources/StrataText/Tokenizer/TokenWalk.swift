import StrataFormat

/// One pass of ``TextTokenizer`` over a text: its UAX #29 segments classified, CJK and Southeast
/// Asian runs gathered across segments, tokens handed to the caller with their positions.
struct TokenWalk {
    let tokenizer: TextTokenizer
    let mode: TextTokenizer.Mode
    let utf8: UnsafeBufferPointer<UInt8>
    let body: (TextToken) -> Void
    let segmenter: WordSegmenter
    /// The next token's position.
    private(set) var position = 0
    /// The characters (scalar ranges: a base and its attached marks) of the CJK run being gathered.
    private var cjkRun: [Range<Int>] = []
    /// The scalars of the Southeast Asian run being gathered.
    private var complexRun: Range<Int>?
    /// Folded bytes, reused from word to word.
    private var scratch: [UInt8] = []

    init(tokenizer: TextTokenizer, mode: TextTokenizer.Mode, utf8: UnsafeBufferPointer<UInt8>,
         body: @escaping (TextToken) -> Void) {
        self.tokenizer = tokenizer
        self.mode = mode
        self.utf8 = utf8
        self.body = body
        segmenter = WordSegmenter(utf8: utf8)
    }

    /// What a segment holds, from its characters that are not attached marks.
    struct SegmentKind {
        var hasBase = false
        var allCJK = true
        var allComplex = true
        var isWord = false
        var isPictographic = false
        var stemmable = true
    }

    mutating func run() {
        let count = segmenter.count
        guard count > 0 else { return }
        var start = 0
        for index in 1..<max(count, 1) where segmenter.isBoundary(before: index) {
            take(start..<index)
            start = index
        }
        take(start..<count)
        flushRuns()
    }

    private func kind(of segment: Range<Int>) -> SegmentKind {
        var kind = SegmentKind()
        for index in segment {
            let info = segmenter.infos[index]
            let property = segmenter.property(index)
            if property.isIgnorable { continue }
            kind.hasBase = true
            if !info.isCJK { kind.allCJK = false }
            if !info.isComplexContext { kind.allComplex = false }
            if property.isLetter || property == .numeric || property == .katakana || info.isCJK || info.isComplexContext {
                kind.isWord = true
            }
            if info.isPictographic || property == .regionalIndicator { kind.isPictographic = true }
            if property != .aLetter && property != .singleQuote && property != .midNumLet { kind.stemmable = false }
        }
        return kind
    }

    private mutating func take(_ segment: Range<Int>) {
        let kind = kind(of: segment)
        if kind.hasBase && kind.allCJK {
            if complexRun != nil { flushRuns() }
            var start = segment.lowerBound
            for index in segment.dropFirst() where !segmenter.property(index).isIgnorable {
                cjkRun.append(start..<index)
                start = index
            }
            cjkRun.append(start..<segment.upperBound)
            return
        }
        if kind.hasBase && kind.allComplex {
            if !cjkRun.isEmpty { flushRuns() }
            complexRun = (complexRun?.lowerBound ?? segment.lowerBound)..<segment.upperBound
            return
        }
        flushRuns()
        if kind.isWord || kind.isPictographic {
            emitWord(segment, stemmable: kind.stemmable && !kind.isPictographic, pictographic: !kind.isWord)
        }
    }

    private func bytes(_ scalars: Range<Int>) -> Range<Int> {
        segmenter.offsets[scalars.lowerBound]..<segmenter.offsets[scalars.upperBound]
    }

    private mutating func emitWord(_ scalars: Range<Int>, stemmable: Bool, pictographic: Bool) {
        let range = bytes(scalars)
        let slice = UnsafeBufferPointer(rebasing: utf8[range])
        if let term = tokenizer.term(of: slice, stemmable: stemmable, pictographic: pictographic, scratch: &scratch),
           !term.isEmpty {
            body(TextToken(term: term, position: position, byteRange: range))
        }
        position += 1
    }

    private mutating func flushRuns() {
        if let run = complexRun {
            complexRun = nil
            emitWord(run, stemmable: false, pictographic: false)
        }
        guard !cjkRun.isEmpty else { return }
        let characters = cjkRun
        cjkRun = []
        var folded: [[UInt8]] = []
        folded.reserveCapacity(characters.count)
        for character in characters {
            var bytes: [UInt8] = []
            Collation.appendFolded(UnsafeBufferPointer(rebasing: utf8[self.bytes(character)]),
                                   TextTokenizer.folding, to: &bytes)
            folded.append(bytes)
        }
        let count = characters.count
        for index in 0..<count {
            defer { position += 1 }
            let last = index == count - 1
            if last && mode == .query && count > 1 { continue }
            var term = folded[index]
            var range = bytes(characters[index])
            if !last {
                term += folded[index + 1]
                range = range.lowerBound..<bytes(characters[index + 1]).upperBound
            }
            guard !term.isEmpty else { continue }
            let text = String(decoding: term, as: UTF8.self)
            if tokenizer.stopWords.contains(text) { continue }
            body(TextToken(term: text, position: position, byteRange: range))
        }
    }
}

/// A regular expression for `MATCHES`, compiled once and run without backtracking: a Thompson
/// NFA simulated breadth-first (a Pike VM), so a match costs at most
/// `2 × (text length + 1) × program size` steps whatever the pattern and text. `(a+)+$` against
/// a long run of `a`s followed by `b`, which a backtracking engine (ICU's, behind
/// `NSRegularExpression`) takes seconds over, costs a few steps per character here.
///
/// The pattern must match the whole string. Characters are Unicode scalars (code points).
///
/// Supported syntax (ICU's, for what it has in common):
/// - literal characters; `\` before punctuation or a space quotes it (`\.`, `\*`, `\\`, `\{`);
///   `\t \n \r \f \a \e`, `\0ooo` (octal), `\xhh`, `\x{h…}`, `\uhhhh`, `\Uhhhhhhhh`, `\cX`;
///   `\Q…\E` quotes everything between
/// - `.`: any character but a line terminator
/// - classes: `[abc]`, `[^a-z0-9_]`, `[\d.]`; `\d \w \s` and their negations `\D \W \S`, inside
///   classes or alone (Unicode digits, word characters and white space)
/// - anchors `^ $ \A \z \Z` (no multi-line mode) and word boundaries `\b \B`
/// - repetition `* + ? {n} {n,} {n,m}` (counts up to ``maxRepetition``) and their lazy forms
///   `*? +? ?? {n,m}?`, which answer the same for a whole-string match
/// - alternation `|`, groups `(…)`, `(?:…)`, `(?<name>…)`, comments `(?#…)`
///
/// Not supported, each a ``SyntaxError`` that names it: backreferences (`\1`, `\k<name>`),
/// lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), atomic groups `(?>`, possessive quantifiers (`*+`),
/// inline flags (`(?i)`: use `MATCHES[c]`), Unicode properties (`\p{…}`), nested classes and set
/// operations (`[[:alpha:]]`, `[a-z&&[^x]]`), `\G \X \R \N{…} \h \v`. A pattern that compiles to
/// more than ``maxProgramSize`` instructions (`(a{1000}){1000}`) is refused too.
package struct RegularExpression: Sendable {
    /// The pattern as written.
    package let pattern: String
    /// `MATCHES[c]`: letters match in either case (simple case folding, per scalar).
    package let caseInsensitive: Bool
    package let program: [Instruction]
    /// The character classes the program's `.set` instructions name.
    package let sets: [ScalarSet]

    /// The largest count `{n,m}` accepts.
    package static let maxRepetition = 1_000
    /// The most instructions a pattern may compile to: the factor that bounds a match's steps.
    package static let maxProgramSize = 10_000
    /// The deepest nesting of groups.
    package static let maxDepth = 200

    /// Compiles `pattern`, or throws a ``SyntaxError`` naming the problem and its position.
    package init(_ pattern: String, caseInsensitive: Bool = false) throws(SyntaxError) {
        var parser = RegexParser(Array(pattern.unicodeScalars))
        let node = try parser.parse()
        let size = node.programSize
        guard size < Self.maxProgramSize else {
            throw SyntaxError(problem: "the pattern is too large: it compiles to \(size == Int.max ? "too many" : "\(size + 1)") instructions once its repetitions are expanded (`(x){n}` is n copies of x), more than the limit of \(Self.maxProgramSize)")
        }
        var compiler = RegexCompiler(caseInsensitive: caseInsensitive)
        try compiler.compile(node)
        _ = try compiler.emit(.match)
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        program = compiler.program
        sets = parser.sets
    }

    /// Why a pattern was refused: a mistake, an unsupported construct or a size limit, at a
    /// position (1-based, in characters of the pattern).
    package struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        package var problem: String
        /// 1-based position of the character the problem was found at; nil for the whole pattern.
        package var position: Int?

        package var description: String { position.map { "\(problem) at position \($0)" } ?? problem }
    }

    /// One step of the compiled program.
    package enum Instruction: Sendable, Equatable {
        /// Consumes this scalar (case-folded when the expression is case-insensitive).
        case scalar(Unicode.Scalar)
        /// Consumes any scalar but a line terminator.
        case any
        /// Consumes a scalar of `sets[index]`.
        case set(Int)
        /// Continues at both targets.
        case split(Int, Int)
        case jump(Int)
        /// Continues only where the assertion holds; consumes nothing.
        case assert(Assertion)
        /// The whole text matched when reached at its end.
        case match
    }

    /// A condition on a position between characters.
    package enum Assertion: Sendable, Equatable {
        /// `^`, `\A`: the start of the text.
        case start
        /// `\z`: the end of the text.
        case end
        /// `$`, `\Z`: the end, or before a line terminator that ends the text.
        case endOrFinalLineTerminator
        /// `\b`, `\B`: between a word and a non-word character (the text's ends count as non-word), or not.
        case wordBoundary(Bool)
    }
}

/// A character class: ranges of scalars and shorthand classes, possibly negated.
package struct ScalarSet: Sendable {
    /// `\d`, `\w`, `\s`.
    package enum Shorthand: Sendable, Equatable {
        case digit, word, space

        package func contains(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch self {
            case .digit:
                return properties.generalCategory == .decimalNumber
            case .space:
                return properties.isWhitespace
            case .word:
                if scalar == "_" || scalar.value == 0x200C || scalar.value == 0x200D { return true }
                switch properties.generalCategory {
                case .decimalNumber, .connectorPunctuation, .nonspacingMark, .spacingMark, .enclosingMark: return true
                default: return properties.isAlphabetic
                }
            }
        }
    }

    var ranges: [ClosedRange<UInt32>] = []
    var shorthands: [(shorthand: Shorthand, negated: Bool)] = []
    var negated = false

    /// Whether `scalar` is in the class; case-insensitively, a scalar is in it when it or one of
    /// its case variants is (so `[^a]` excludes `A` too).
    package func contains(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
        var found = containsExactly(scalar)
        if !found, caseInsensitive {
            found = CaseFolding.variants(of: scalar).contains { containsExactly($0) }
        }
        return found != negated
    }

    private func containsExactly(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Binary search: the ranges are sorted and disjoint (``normalized()``).
        var (low, high) = (0, ranges.count)
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        if low < ranges.count, ranges[low].contains(value) { return true }
        for entry in shorthands where entry.shorthand.contains(scalar) != entry.negated { return true }
        return false
    }

    /// The same class with its ranges sorted and merged and each shorthand once, so that a
    /// membership test costs a binary search however long the class is written.
    package func normalized() -> ScalarSet {
        var copy = self
        copy.ranges = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = copy.ranges.last, range.lowerBound <= last.upperBound &+ 1 {
                copy.ranges[copy.ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                copy.ranges.append(range)
            }
        }
        copy.shorthands = []
        for entry in shorthands where !copy.shorthands.contains(where: { $0 == entry }) { copy.shorthands.append(entry) }
        return copy
    }
}

/// Simple, per-scalar case folding: `MATCHES[c]` compares folded scalars.
package enum CaseFolding {
    /// The scalar's single-scalar lowercase of its uppercase (so `ς`, `σ` and `Σ` fold alike), or
    /// the scalar itself when a mapping expands to several scalars.
    package static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        return single(upper.properties.lowercaseMapping) ?? scalar
    }

    /// The scalar's single-scalar lower-, upper- and titlecase forms.
    package static func variants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let properties = scalar.properties
        return [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping]
            .compactMap(single).filter { $0 != scalar }
    }

    private static func single(_ mapping: String) -> Unicode.Scalar? {
        var scalars = mapping.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}

/// Turns a parsed pattern into a program (Thompson's construction). `e{n,m}` is `n` copies of `e`
/// and `m - n` optional copies; the size is checked at every instruction, so a pattern that
/// would expand past ``RegularExpression/maxProgramSize`` stops compiling at that point.
package struct RegexCompiler {
    package let caseInsensitive: Bool
    private(set) var program: [RegularExpression.Instruction] = []

    package init(caseInsensitive: Bool) { self.caseInsensitive = caseInsensitive }

    package mutating func emit(_ instruction: RegularExpression.Instruction) throws(RegularExpression.SyntaxError) -> Int {
        guard program.count < RegularExpression.maxProgramSize else {
            throw RegularExpression.SyntaxError(
                problem: "the pattern is too large (more than \(RegularExpression.maxProgramSize) steps once its repetitions are expanded)")
        }
        program.append(instruction)
        return program.count - 1
    }

    package mutating func compile(_ node: RegexNode) throws(RegularExpression.SyntaxError) {
        switch node {
        case .empty:
            break
        case .scalar(let scalar):
            _ = try emit(.scalar(caseInsensitive ? CaseFolding.fold(scalar) : scalar))
        case .any:
            _ = try emit(.any)
        case .set(let index):
            _ = try emit(.set(index))
        case .assertion(let assertion):
            _ = try emit(.assert(assertion))
        case .concatenation(let nodes):
            for node in nodes { try compile(node) }
        case .alternation(let branches):
            var exits: [Int] = []
            for branch in branches.dropLast() {
                let split = try emit(.split(0, 0))
                try compile(branch)
                exits.append(try emit(.jump(0)))
                program[split] = .split(split + 1, program.count)
            }
            try compile(branches[branches.count - 1])
            for exit in exits { program[exit] = .jump(program.count) }
        case .repetition(let node, let min, let max):
            for _ in 0..<min { try compile(node) }
            if let max {
                for _ in min..<max {
                    let split = try emit(.split(0, 0))
                    try compile(node)
                    program[split] = .split(split + 1, program.count)
                }
            } else {
                let split = try emit(.split(0, 0))
                try compile(node)
                _ = try emit(.jump(split))
                program[split] = .split(split + 1, program.count)
            }
        }
    }
}

extension RegexNode {
    /// The instructions ``RegexCompiler`` emits for this node (saturating at `Int.max`), so that
    /// a pattern too large is refused with its size before anything is compiled.
    package var programSize: Int {
        func sum(_ a: Int, _ b: Int) -> Int { let (s, o) = a.addingReportingOverflow(b); return o ? .max : s }
        func product(_ a: Int, _ b: Int) -> Int { let (p, o) = a.multipliedReportingOverflow(by: b); return o ? .max : p }
        switch self {
        case .empty: return 0
        case .scalar, .any, .set, .assertion: return 1
        case .concatenation(let nodes): return nodes.reduce(0) { sum($0, $1.programSize) }
        case .alternation(let branches):
            return sum(branches.reduce(0) { sum($0, $1.programSize) }, product(2, branches.count - 1))
        case .repetition(let node, let min, let max):
            let size = node.programSize
            guard let max else { return sum(product(min, size), sum(size, 2)) }
            return sum(product(min, size), product(max - min, sum(size, 1)))
        }
    }
}

/// A parsed pattern.
package indirect enum RegexNode: Sendable, Equatable {
    case empty
    case scalar(Unicode.Scalar)
    case any
    /// A class, by its index in the parser's `sets`.
    case set(Int)
    case assertion(RegularExpression.Assertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
}

import CZlib
import Foundation

/// One document of the corpus: a paragraph of an installed manual page.
struct ManualParagraph: Sendable {
    var id: Int64
    /// The page's name (`open`).
    var page: String
    /// The page's section as its file name gives it (`2`, `3`, `3perl`, `1`).
    var section: String
    /// `open(2) DESCRIPTION`: the page and the heading the paragraph is under.
    var title: String
    /// The paragraph's text, roff requests and escapes removed.
    var body: String
}

/// The corpus, built from the manual pages installed on the machine (Debian's `manpages`,
/// `manpages-dev` and those of every installed package): each page's roff source is read
/// (gunzipped with zlib), `.so` links are skipped, requests are dropped or reduced to their text
/// (`.B word` → `word`), escapes are removed or replaced (`\fB`, `\-` → `-`, `\(em` → `—`, `\('e` → `é`,
/// `\[u00E9]` → `é`, `\*(Aq` → `'`), and the text is
/// cut into paragraphs at `.PP`/`.P`/`.LP`/`.TP`/`.IP`/`.sp`/blank lines and headings at
/// `.SH`/`.SS` (mdoc's `.Sh`/`.Ss`/`.Pp` alike); a paragraph of fewer than three words is left
/// out. Pages are read in the order of an FNV-1a hash of their file names (mixing the sections),
/// so the documents and their ids are the same on every run on the same installation.
enum ManualCorpus {
    static let breaks: Set<String> = ["PP", "P", "LP", "TP", "TQ", "IP", "HP", "sp", "Pp", "Lp", "br", "RS", "RE", "Bl", "El", "Bd", "Ed", "It", "EX", "EE", "nf", "fi"]
    static let headings: Set<String> = ["SH", "SS", "Sh", "Ss"]
    static let dropped: Set<String> = ["TH", "Dd", "Dt", "Os", "in", "ti", "ad", "na", "hy", "nh", "ne", "ft", "ps", "vs", "ll", "nr", "ds",
                                       "tr", "rm", "so", "mso", "cc", "if", "ie", "el", "PD", "UR", "UE", "MT", "ME", "TS", "TE", "T{", "T}",
                                       "ig", "de", "am", "ev", "ta", "bp", "ce", "ns", "rs", "Sm", "Bk", "Ek", "Xc", "Xo", "Nd", "An", "Lb"]

    /// Documents from the pages under `root` (`/usr/share/man`, or a language's folder such as
    /// `/usr/share/man/de`), at most `limit`, numbered from `firstID`.
    static func read(root: String, limit: Int, firstID: Int64 = 1) -> [ManualParagraph] {
        var documents: [ManualParagraph] = []
        var id = firstID
        var files: [(folder: String, name: String)] = []
        for section in 1...8 {
            let folder = "\(root)/man\(section)"
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            files += names.filter { $0.hasSuffix(".gz") }.map { (folder, $0) }
        }
        // A fixed order that mixes the sections: by an FNV-1a hash of the file name, then the name.
        func fnv(_ text: String) -> UInt64 { text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 } }
        files.sort { (fnv($0.name), $0.name) < (fnv($1.name), $1.name) }
        do {
            for (folder, name) in files {
                guard let source = gunzip("\(folder)/\(name)") else { continue }
                let base = String(name.dropLast(3))   // open.2
                guard let dot = base.lastIndex(of: ".") else { continue }
                let page = String(base[..<dot]), pageSection = String(base[base.index(after: dot)...])
                for (heading, text) in paragraphs(of: source) {
                    documents.append(ManualParagraph(id: id, page: page, section: pageSection,
                                                     title: "\(page)(\(pageSection)) \(heading)", body: text))
                    id += 1
                    if documents.count >= limit { return documents }
                }
            }
        }
        return documents
    }

    /// The file's bytes, decompressed (nil when it cannot be read).
    static func gunzip(_ path: String) -> String? {
        guard let file = gzopen(path, "rb") else { return nil }
        defer { gzclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = buffer.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if read < 0 { return nil }
            if read == 0 { break }
            bytes.append(contentsOf: buffer[0..<Int(read)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The page's paragraphs, each with the heading it is under.
    static func paragraphs(of source: String) -> [(String, String)] {
        var result: [(String, String)] = []
        var heading = ""
        var current: [String] = []
        var skipping = false   // inside .de/.ig … ..
        func flush() {
            let text = current.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            current = []
            if text.split(separator: " ").count >= 3 { result.append((heading, text)) }
        }
        for rawLine in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = Substring(rawLine)
            if skipping { if line.hasPrefix("..") { skipping = false }; continue }
            if line.hasPrefix(".so ") && result.isEmpty && current.isEmpty { return [] }
            if line.hasPrefix(".\\\"") || line.hasPrefix("'\\\"") || line.hasPrefix("\\\"") { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { flush(); continue }
            if line.hasPrefix(".") || line.hasPrefix("'") {
                let request = line.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
                let name = String(request.prefix(while: { $0 != " " && $0 != "\t" }))
                let arguments = request.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
                if name == "de" || name == "ig" || name == "am" { skipping = true; continue }
                if headings.contains(name) {
                    flush()
                    heading = text(of: Substring(arguments.replacingOccurrences(of: "\"", with: "")))
                    continue
                }
                if breaks.contains(name) {
                    flush()
                    if (name == "IP" || name == "It") && !arguments.isEmpty { current.append(text(of: Substring(arguments.replacingOccurrences(of: "\"", with: "")))) }
                    continue
                }
                if dropped.contains(name) || name.isEmpty { continue }
                // Font and mdoc requests: their arguments are text (`.BR open (2)` → `open (2)`).
                current.append(text(of: Substring(arguments.replacingOccurrences(of: "\"", with: ""))))
                continue
            }
            current.append(text(of: line))
        }
        flush()
        return result
    }

    static let specials: [String: String] = ["em": "—", "en": "–", "aq": "'", "dq": "\"", "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
                                             "mi": "-", "hy": "-", "co": "©", "rg": "®", "bu": "•", "ti": "~", "ha": "^", "rs": "\\",
                                             "a:": "ä", "o:": "ö", "u:": "ü", "A:": "Ä", "O:": "Ö", "U:": "Ü", "ss": "ß", "e'": "é",
                                             "e`": "è", "a`": "à", "c,": "ç", "->": "→", "<-": "←", "<=": "≤", ">=": "≥", "mu": "×"]

    static let accents: [Character: String] = ["'": "\u{301}", "`": "\u{300}", "^": "\u{302}", ":": "\u{308}", "~": "\u{303}", ",": "\u{327}"]

    /// A line of roff text with its escapes removed.
    static func text(of line: Substring) -> String {
        var out = ""
        var characters = Array(line)
        var i = 0
        func special(_ name: String) -> String {
            if let known = specials[name] { return known }
            let c = Array(name)
            // \('e \(`a \(^e: a letter and its accent; \[u00E9]: a code point.
            if c.count == 2, let mark = accents[c[0]], c[1].isLetter { return (String(c[1]) + mark).precomposedStringWithCanonicalMapping }
            if c.first == "u", let value = UInt32(String(c.dropFirst()), radix: 16), let scalar = Unicode.Scalar(value) { return String(Character(scalar)) }
            return " "
        }
        while i < characters.count {
            let c = characters[i]
            guard c == "\\", i + 1 < characters.count else { out.append(c); i += 1; continue }
            let e = characters[i + 1]
            i += 2
            switch e {
            case "*" where i + 2 < characters.count && characters[i] == "(" && characters[i + 1] == "A" && characters[i + 2] == "q":
                out.append("'")   // \*(Aq, the man macros' apostrophe
                i += 3
            case "f", "*", "n", "g", "k", "F", "m":   // font, string, register: \fB \f(CW \f[B] \*(xx
                guard i < characters.count else { break }
                if characters[i] == "(" { i += 3 } else if characters[i] == "[" {
                    while i < characters.count && characters[i] != "]" { i += 1 }
                    i += 1
                } else { i += 1 }
            case "(":
                if i + 1 < characters.count { out += special(String(characters[i...i + 1])) }
                i += 2
            case "[":
                var name = ""
                while i < characters.count && characters[i] != "]" { name.append(characters[i]); i += 1 }
                i += 1
                out += special(name)
            case "s":   // \s-1 \s+2 \s0
                if i < characters.count && (characters[i] == "-" || characters[i] == "+") { i += 1 }
                while i < characters.count && characters[i].isNumber { i += 1 }
            case "-": out.append("-")
            case "e", "\\": out.append("\\")
            case " ", "~": out.append(" ")
            case "&", ":", "%", "/", ",", "|", "^", "c", "0", "d", "u", "t": break
            case "\"": i = characters.count   // a comment to the end of the line
            default: out.append(e)
            }
        }
        characters = []
        return out
    }
}

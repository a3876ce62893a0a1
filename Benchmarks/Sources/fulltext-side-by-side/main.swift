// fulltext-side-by-side [--count N] [--queries N] [--min-seconds S] [--upserts N] [--seed S] [--man-root DIR] [--profile SHAPE SECONDS]
//
// Full-text search, Strata's `SEARCH` beside SQLite FTS5 through its C API, on a corpus the
// program builds from the manual pages installed on the machine (see --help), and on the
// translated pages of /usr/share/man/{de,fr,ja,zh_CN}. Prints settings and Markdown tables on
// standard output, progress on standard error. Build in release:
// `cd Benchmarks && swift build -c release -j 1 --product fulltext-side-by-side`.
import EngineComparison
import Foundation
import Strata

func fail(_ message: String) -> Never { benchmarkFailure("fulltext-side-by-side", message) }

var count = 100_000
var queryCount = 50
var minSeconds = 0.3
var upserts = 100
var seed: UInt64 = 42
var manRoot = "/usr/share/man"
var profile: (shape: TextShape, seconds: Double)?
var overlapDetail = false
var arguments = BenchmarkArguments(tool: "fulltext-side-by-side")
while let argument = arguments.next() {
    switch argument {
    case "--count": count = arguments.positiveInteger(for: argument)
    case "--queries": queryCount = arguments.positiveInteger(for: argument)
    case "--upserts": upserts = arguments.positiveInteger(for: argument)
    case "--seed": seed = arguments.unsignedInteger(for: argument)
    case "--man-root": manRoot = arguments.value(for: argument)
    case "--min-seconds":
        guard let s = Double(arguments.value(for: argument)), s >= 0 else { fail("--min-seconds must be a number ≥ 0") }
        minSeconds = s
    case "--profile":
        let name = arguments.value(for: argument)
        guard let shape = TextShape.allCases.first(where: { "\($0)" == name }) else {
            fail("unknown shape '\(name)'; one of \(TextShape.allCases.map { "\($0)" }.joined(separator: ", "))")
        }
        guard let s = Double(arguments.value(for: "--profile SHAPE")), s > 0 else { fail("--profile SHAPE SECONDS") }
        profile = (shape, s)
    case "--overlap-detail": overlapDetail = true
    case "--help", "-h":
        print("""
            usage: fulltext-side-by-side [--count N (100000)] [--queries N per shape (50)] [--min-seconds S per shape and engine (0.3)]
                                         [--upserts N (100)] [--seed S (42)] [--man-root DIR (/usr/share/man)] [--profile SHAPE SECONDS]

            The corpus is built at each run from the installed manual pages (Debian: apt-get install manpages manpages-dev; every
            installed package's pages count): DIR/man1 … DIR/man8, pages in the order of an FNV-1a hash of their file names (a
            fixed sample across the sections), each page's roff source gunzipped,
            `.so` links skipped, requests dropped or reduced to their text, escapes removed, cut into paragraphs at .PP/.P/.LP/.TP/
            .IP/.sp/blank lines (mdoc's .Pp alike) under their .SH/.SS heading; paragraphs of fewer than three words left out; the
            first N are the documents: id, page, section (from the file name: 2, 3, 3perl), title ("open(2) DESCRIPTION"), body.
            The multilingual corpus is every paragraph of DIR/de, DIR/fr, DIR/ja and DIR/zh_CN, cut the same way.
            Queries are drawn from random documents with the seed (shapes: \(TextShape.allCases.map { "\($0)" }.joined(separator: ", "))).
            --profile runs Strata's queries of one shape for SECONDS after the build, for `perf record`.
            --overlap-detail prints, after the build, where FTS5's top 10 of the one- and two-term queries stand in Strata's ranking.
            """)
        exit(0)
    default: arguments.unknown(argument)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}
func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
func micro(_ ns: Double) -> String { ns >= 100_000 ? f(ns / 1000, 0) : f(ns / 1000, 1) }

/// Runs each query once (the results kept), then in rounds until `minSeconds` have been spent;
/// each query's latency is the median of its runs.
func measure(_ queries: [TextQueryCase], minSeconds: Double, _ run: (TextQueryCase) throws -> [Int64]) throws -> (latencies: [Double], results: [[Int64]]) {
    var results: [[Int64]] = []
    for q in queries { results.append(try run(q)) }
    var samples = Array(repeating: [Double](), count: queries.count)
    var spent: UInt64 = 0
    repeat {
        for (i, q) in queries.enumerated() {
            let start = now()
            let ids = try run(q)
            let t = now() - start
            precondition(!ids.isEmpty || results[i].isEmpty)
            samples[i].append(Double(t))
            spent += t
        }
    } while Double(spent) / 1e9 < minSeconds
    return (samples.map(median), results)
}

/// Up to 60 characters either side of the first place `query`'s first word (or prefix) occurs
/// in `body`, case folded: where a matching-set difference comes from.
func context(of query: String, in body: String) -> String {
    let word = query.split(separator: " ").first.map { $0.filter { $0 != "\"" && $0 != "*" } } ?? ""
    let folded = body.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    guard !word.isEmpty, folded.count == body.count, let range = folded.range(of: word.lowercased()) else { return String(body.prefix(120)) }
    let start = folded.distance(from: folded.startIndex, to: range.lowerBound)
    let characters = Array(body)
    return String(characters[max(0, start - 60)..<min(characters.count, start + word.count + 60)])
}

struct ShapeResult {
    var shape: String
    var queries: Int
    var strataMedian = 0.0, sqliteMedian = 0.0, strataP90 = 0.0, sqliteP90 = 0.0
    var equalSets = 0, compared = 0, onlyStrata = 0, onlySQLite = 0
    var overlap = 0.0, overlapQueries = 0, untiedOverlap = 0.0
    var meanMatches = 0.0
    var examples: [String] = []
    var worst: (query: String, strata: Double, sqlite: Double)?
}

/// Measures one shape on both engines and cross-checks their matching sets and top tens.
func compare(_ name: String, _ queries: [TextQueryCase], strata: StrataText, sqlite: SQLiteText,
             documents: [Int64: ManualParagraph], minSeconds: Double) throws -> ShapeResult {
    var result = ShapeResult(shape: name, queries: queries.count)
    let (sLat, sTop) = try strata.store.read { tx in try measure(queries, minSeconds: minSeconds) { try strata.topTen(tx, $0.text, section: $0.section) } }
    let (qLat, qTop) = try sqlite.transaction { try measure(queries, minSeconds: minSeconds) { try sqlite.topTen($0.text, section: $0.section) } }
    result.strataMedian = median(sLat); result.sqliteMedian = median(qLat)
    result.strataP90 = percentile(sLat, 0.9); result.sqliteP90 = percentile(qLat, 0.9)
    if let worst = zip(queries.indices, zip(sLat, qLat)).max(by: { $0.1.0 / $0.1.1 < $1.1.0 / $1.1.1 }) {
        result.worst = (queries[worst.0].text + (queries[worst.0].section.map { " ∧ section = \($0)" } ?? ""), worst.1.0, worst.1.1)
    }
    // Matching sets (the text query alone) and top-ten overlap.
    var matchCounts: [Double] = []
    try strata.store.read { tx in
        try sqlite.transaction {
            for (i, q) in queries.enumerated() {
                let s = Set(try strata.matches(tx, q.text)), l = Set(try sqlite.matches(q.text))
                matchCounts.append(Double(l.count))
                result.compared += 1
                if s == l { result.equalSets += 1 } else {
                    let extraS = s.subtracting(l).sorted(), extraL = l.subtracting(s).sorted()
                    result.onlyStrata += extraS.count; result.onlySQLite += extraL.count
                    if result.examples.count < 4 {
                        let id = extraS.first ?? extraL.first!
                        let side = extraS.isEmpty ? "FTS5 only" : "Strata only"
                        let body = documents[id].map { context(of: q.text, in: $0.body) } ?? "?"
                        result.examples.append("`\(q.text)`: Strata \(s.count), FTS5 \(l.count) (\(extraS.count) Strata only, \(extraL.count) FTS5 only); e.g. \(side) #\(id) \(documents[id]?.title ?? ""): “…\(body)…”")
                    }
                }
                result.untiedOverlap += qTop[i].isEmpty ? 0 : Double(Set(sTop[i]).intersection(qTop[i]).count) / Double(qTop[i].count)
                let tied = try sqlite.topTen(q.text, section: q.section, tiesByRowid: true)
                if !tied.isEmpty {
                    result.overlap += Double(Set(sTop[i]).intersection(tied).count) / Double(tied.count)
                    result.overlapQueries += 1
                }
            }
        }
    }
    result.meanMatches = matchCounts.isEmpty ? 0 : matchCounts.reduce(0, +) / Double(matchCounts.count)
    return result
}

let conditions = RunConditions()
let uptimeBefore = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
do {
    log("reading \(manRoot)/man1…man8")
    var start = now()
    let documents = ManualCorpus.read(root: manRoot, limit: count)
    let corpusSeconds = Double(now() - start) / 1e9
    guard documents.count >= min(count, 1000) else { fail("only \(documents.count) paragraphs under \(manRoot): install manpages and manpages-dev") }
    let bytes = documents.reduce(0) { $0 + $1.title.utf8.count + $1.body.utf8.count }
    let pages = Set(documents.map { "\($0.page).\($0.section)" }).count
    log("\(documents.count) paragraphs of \(pages) pages, \(mebibytes(bytes)) of text, in \(f(corpusSeconds)) s")
    let byID = Dictionary(uniqueKeysWithValues: documents.map { ($0.id, $0) })
    let sectionShares = Dictionary(grouping: documents, by: { $0.section.prefix(1) }).sorted { $0.key < $1.key }
        .map { "\($0.key) \(f(100 * Double($0.value.count) / Double(documents.count), 1)) %" }.joined(separator: ", ")

    // Build.
    let strata = try StrataText(prefix: "ftsdocs-strata")
    let sqlite = try SQLiteText(prefix: "ftsdocs-fts5")
    log("Strata: building")
    start = now(); try strata.load(documents); let strataBuild = Double(now() - start) / 1e9
    log("FTS5: building")
    start = now(); try sqlite.load(documents); let sqliteBuild = Double(now() - start) / 1e9
    let plain = try StrataText(prefix: "ftsdocs-plain")
    log("Strata without the text index: building")
    start = now(); try plain.loadPlain(documents); let plainBuild = Double(now() - start) / 1e9
    let strataSize = try strata.size(), sqliteSize = try sqlite.size(), plainSize = try plain.size()
    let textIndexBytes = strataSize.used - plainSize.used   // the same records and section index in both stores

    if overlapDetail {
        let df = QueryDraw.documentFrequencies(documents)
        print("| query | FTS5 top-10 documents missing from Strata's top 10 | their rank in Strata (of all matches) | their Strata score below Strata's 10th, % |")
        print("|---|---:|---|---|")
        for shape in [TextShape.oneTerm, .twoTerms] {
            for q in QueryDraw.draw(shape, count: queryCount, from: documents, df: df, seed: seed) {
                let tied = try sqlite.transaction { try sqlite.topTen(q.text, tiesByRowid: true) }
                let ranked = try strata.store.read { tx in
                    try tx.query(TextDoc.self).where(.matches(\.body, q.text)).sorted(by: .relevance).scored().map { ($0.record.id, $0.score) }
                }
                let top = Set(ranked.prefix(10).map(\.0))
                let missing = tied.filter { !top.contains($0) }
                guard !missing.isEmpty, ranked.count >= 10 else { continue }
                let tenth = ranked[9].1
                let place = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($1.0, ($0 + 1, $1.1)) })
                let ranks = missing.map { place[$0].map { "\($0.0)" } ?? "–" }.joined(separator: ", ")
                let gaps = missing.map { place[$0].map { f(100 * (tenth - $0.1) / tenth, 2) } ?? "–" }.joined(separator: ", ")
                print("| `\(q.text)` | \(missing.count) | \(ranks) (of \(ranked.count)) | \(gaps) |")
            }
        }
        exit(0)
    }

    if let profile {
        let queries = QueryDraw.draw(profile.shape, count: queryCount, from: documents,
                                     df: QueryDraw.documentFrequencies(documents), seed: seed)
        try strata.store.read { tx in
            for q in queries.prefix(3) {
                var request = tx.query(TextDoc.self).where(.matches(\.body, q.text))
                if let section = q.section { request = tx.query(TextDoc.self).where(.matches(\.body, q.text) && \.section == section) }
                log("explain \(q.text) \(q.section ?? ""): \(try request.sorted(by: .relevance).limit(10).explain())")
            }
        }
        log("profiling Strata, \(profile.shape.rawValue), \(profile.seconds) s")
        var runs = 0
        start = now()
        try strata.store.read { tx in
            while Double(now() - start) / 1e9 < profile.seconds {
                for q in queries { _ = try strata.topTen(tx, q.text, section: q.section); runs += 1 }
            }
        }
        log("\(runs) queries")
        exit(0)
    }

    // Queries.
    let df = QueryDraw.documentFrequencies(documents)
    var shapeResults: [ShapeResult] = []
    for shape in TextShape.allCases {
        let queries = QueryDraw.draw(shape, count: queryCount, from: documents, df: df, seed: seed)
        log("\(shape.rawValue): \(queries.count) queries")
        shapeResults.append(try compare(shape.rawValue, queries, strata: strata, sqlite: sqlite, documents: byID, minSeconds: minSeconds))
    }

    // Incremental upserts, one document per transaction.
    var random = SplitMix(state: seed ^ 0xABCDEF)
    let targets = (0..<upserts).map { i -> ManualParagraph in
        var d = documents[Int(random.next() % UInt64(documents.count))]
        d.body += " revised \(i) " + (d.body.split(separator: " ").first.map(String.init) ?? "")
        return d
    }
    func timeEach(_ body: (ManualParagraph) throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for d in targets { let s = now(); try body(d); samples.append(Double(now() - s)) }
        return median(samples)
    }
    log("upserts")
    let upsertText = try timeEach { d in _ = try strata.store.write { tx in try tx.upsert(TextDoc(d)) } }
    let upsertPlain = try timeEach { d in _ = try plain.store.write { tx in try tx.upsert(PlainDoc(d)) } }
    let upsertTextDeferred = try timeEach { d in _ = try strata.store.write(durability: .deferred) { tx in try tx.upsert(TextDoc(d)) } }
    let upsertPlainDeferred = try timeEach { d in _ = try plain.store.write(durability: .deferred) { tx in try tx.upsert(PlainDoc(d)) } }
    let upsertSQLite = try timeEach { d in try sqlite.upsert(d) }

    // The multilingual corpus.
    log("multilingual corpus")
    var multilingual: [(language: String, documents: Int, strataRate: Double, sqliteRate: Double, strataSize: Int, sqliteSize: Int, result: ShapeResult)] = []
    var nextID: Int64 = 1
    for language in ["de", "fr", "ja", "zh_CN"] {
        let docs = ManualCorpus.read(root: "\(manRoot)/\(language)", limit: .max, firstID: nextID)
        guard !docs.isEmpty else { continue }
        nextID += Int64(docs.count)
        let s = try StrataText(prefix: "ftsdocs-strata-\(language)"), q = try SQLiteText(prefix: "ftsdocs-fts5-\(language)")
        start = now(); try s.load(docs); let sb = Double(now() - start) / 1e9
        start = now(); try q.load(docs); let qb = Double(now() - start) / 1e9
        let queries = QueryDraw.drawMultilingual(count: queryCount, from: docs, cjk: language == "ja" || language == "zh_CN", seed: seed)
        let r = try compare("\(language), one term", queries, strata: s, sqlite: q, documents: Dictionary(uniqueKeysWithValues: docs.map { ($0.id, $0) }), minSeconds: minSeconds)
        multilingual.append((language, docs.count, Double(docs.count) / sb, Double(docs.count) / qb, try s.size().used, try q.size(), r))
        s.close(); q.close()
    }

    // Output.
    let strataRate = Double(documents.count) / strataBuild, sqliteRate = Double(documents.count) / sqliteBuild
    let plainRate = Double(documents.count) / plainBuild
    print("""
        Corpus: \(grouped(Double(documents.count))) paragraphs of \(grouped(Double(pages))) manual pages under \(manRoot)/man1…man8 \
        (pages in the order of an FNV-1a hash of their file names; sections: \(sectionShares)) \
        (\(mebibytes(bytes)) of title and body text; read and cut in \(f(corpusSeconds)) s, not measured), seed \(seed), \
        \(queryCount) queries per shape drawn from random documents; each query's latency is the median of its runs \
        (rounds until \(minSeconds) s per engine and shape, one read transaction per engine and shape), the table gives \
        the median and 90th percentile over the queries. Results: ids only (Strata `ids()`, FTS5 `rowid`).

        - Strata: \(StrataEngine.settingsLine(records: "`TextDoc` through its synthesized `Codable`", indexes: "`.index(\\.section)`, `.fullText(\\.title, \\.body)` (no stemming, no stop words: case and diacritics folded, UAX #29 words, CJK bigrams)")); \
        queries `tx.query(TextDoc.self).where(.matches(\\.body, q)).sorted(by: .relevance).limit(10).ids()` (`&& \\.section == s` for the selective shape), matching sets by `.where(.matches(\\.body, q)).ids()`; bulk load one `tx.upsert(records)` in one transaction
        - SQLite: \(sqlite.settings); bulk load one transaction of `INSERT OR REPLACE INTO doc` + `INSERT INTO doc_fts` per document

        | measure | Strata | SQLite FTS5 | Strata / FTS5 |
        |---|---:|---:|---:|
        | index build, documents/s (one transaction) | \(grouped(strataRate)) | \(grouped(sqliteRate)) | \(f(strataRate / sqliteRate))× |
        | build without the text index (Strata), documents/s | \(grouped(plainRate)) | – | – |
        | store size (Strata: LMDB pages in use; SQLite: file after `wal_checkpoint(TRUNCATE)`) | \(mebibytes(strataSize.used)) | \(mebibytes(sqliteSize)) | \(f(Double(strataSize.used) / Double(sqliteSize)))× |
        | Strata's store file allocated / store without the text index (pages in use) / the difference, the text index | \(mebibytes(strataSize.allocated)) / \(mebibytes(plainSize.used)) / \(mebibytes(textIndexBytes)) | – | – |

        | top 10 by relevance | queries | mean FTS5 matches | Strata median µs | FTS5 median µs | Strata / FTS5 | Strata p90 µs | FTS5 p90 µs | equal matching sets | docs only in Strata / only in FTS5 | top-10 overlap (FTS5 ties by rowid) | overlap with FTS5's own tie order | worst query (Strata µs / FTS5 µs) |
        |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
        """)
    func row(_ r: ShapeResult) -> String {
        "| \(r.shape) | \(r.queries) | \(f(r.meanMatches, 0)) | \(micro(r.strataMedian)) | \(micro(r.sqliteMedian)) | \(f(r.strataMedian / r.sqliteMedian))× | \(micro(r.strataP90)) | \(micro(r.sqliteP90)) | \(r.equalSets)/\(r.compared) | \(r.onlyStrata) / \(r.onlySQLite) | \(f(r.overlapQueries == 0 ? .nan : r.overlap / Double(r.overlapQueries))) | \(f(r.overlapQueries == 0 ? .nan : r.untiedOverlap / Double(r.overlapQueries))) | "
            + (r.worst.map { "`\($0.query)` (\(micro($0.strata)) / \(micro($0.sqlite)))" } ?? "") + " |"
    }
    for r in shapeResults { print(row(r)) }
    print("""

        | upsert of one document, its own transaction (median of \(upserts)) | µs |
        |---|---:|
        | Strata with the text index, durable (fsync) | \(micro(upsertText)) |
        | Strata without it, durable | \(micro(upsertPlain)) |
        | ratio, durable | \(f(upsertText / upsertPlain))× |
        | Strata with the text index, `.deferred` (no fsync) | \(micro(upsertTextDeferred)) |
        | Strata without it, `.deferred` | \(micro(upsertPlainDeferred)) |
        | ratio, deferred | \(f(upsertTextDeferred / upsertPlainDeferred))× |
        | SQLite FTS5 (old text deleted from the index, row replaced, new text inserted; synchronous=NORMAL, no fsync at commit) | \(micro(upsertSQLite)) |

        Multilingual corpus (the translated pages installed under \(manRoot)/de, fr, ja, zh_CN, cut the same way; one store and one database per language; one-term queries: a word of four or more letters, or for ja and zh_CN the first two characters of a CJK run):

        | language | documents | build docs/s Strata / FTS5 | size Strata / FTS5 | top 10 by relevance | queries | mean FTS5 matches | Strata median µs | FTS5 median µs | Strata / FTS5 | Strata p90 µs | FTS5 p90 µs | equal matching sets | docs only in Strata / only in FTS5 | top-10 overlap (FTS5 ties by rowid) | overlap with FTS5's own tie order | worst query (Strata µs / FTS5 µs) |
        |---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
        """)
    for m in multilingual {
        print("| \(m.language) | \(grouped(Double(m.documents))) | \(grouped(m.strataRate)) / \(grouped(m.sqliteRate)) | \(mebibytes(m.strataSize)) / \(mebibytes(m.sqliteSize)) " + row(m.result))
    }
    print("\nMatching-set differences, examples (a document only one engine matches):\n")
    for r in shapeResults + multilingual.map(\.result) where !r.examples.isEmpty {
        print("- \(r.shape):")
        for e in r.examples { print("  - \(e)") }
    }
    let uptimeAfter = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    print("\n/proc/loadavg before: \(uptimeBefore); after: \(uptimeAfter)")
    print(conditions.summary())
    strata.close(); sqlite.close(); plain.close()
} catch {
    fail("\(error)")
}

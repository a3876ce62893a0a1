import Foundation
import Strata

// snippet: searching-declare
struct Article: Record {
    var id: Int64
    var title: String
    var body: String
    var section: String
    static let primaryKey = \Article.id
    static let indexes: [IndexDefinition<Article>] = [
        .index(\.section),
        .fullText(\.title, \.body, weights: [2, 1]),   // a title's words weigh twice a body's in relevance
    ]
}
// end snippet: searching-declare

// snippet: searching-stemmed
struct Recipe: Record {
    var id: Int64
    var text: String
    static let primaryKey = \Recipe.id
    static let indexes: [IndexDefinition<Recipe>] = [
        .fullText(\.text, stemming: .english, stopWords: .english),   // "running" finds "runs"; "the" is left out
    ]
}
// end snippet: searching-stemmed

func searching(path: String) throws {
    let store = try Store(path: path)
    try store.write { tx in
        try tx.insert([
            Article(id: 1, title: "LMDB in Swift", body: "LMDB maps the database into memory: readers never block the writer, and a transaction commits with one fsync.", section: "storage"),
            Article(id: 2, title: "SQLite's write-ahead log", body: "SQLite in WAL mode lets readers run beside one writer; the database checkpoints the log.", section: "storage"),
            Article(id: 3, title: "Full-text search", body: "A full-text index maps each word to the records holding it; Swift code queries it with SEARCH.", section: "search"),
            Article(id: 4, title: "Travel notes", body: "東京都の東京タワーは高い。Die Straße in Köln, l'élève à Paris.", section: "travel"),
            Article(id: 5, title: "Memory maps", body: "A memory map lets a process read a file as memory; LMDB and SQLite both can use one.", section: "storage"),
        ])
    }
    // snippet: searching-query
    try store.read { tx in
        let both = try tx.query(Article.self).where(.matches(\.body, "lmdb readers")).ids()             // [1]: every word
        let either = try tx.query(Article.self).where("body SEARCH %@", "lmdb OR sqlite").ids()           // [1, 2, 5]
        let without = try tx.query(Article.self).where(.matches(\.body, "database NOT sqlite")).ids()     // [1]
        let phrase = try tx.query(Article.self).where(.matches(\.body, #""memory map""#)).ids()           // [5]
        let prefix = try tx.query(Article.self).where(.matches(\.body, "transact*")).ids()                // [1]
        let near = try tx.query(Article.self).where(.matches(\.body, "NEAR(readers writer, 3)")).ids()    // [1, 2]
        let inTitle = try tx.query(Article.self).where(.matches(\.body, "title:swift")).ids()             // [1]
        let stored = try tx.query(Article.self).where(.matches(\.body, "lmdb") && \.section == "storage").ids()   // [1, 5]
        print(both, either, without, phrase, prefix, near, inTitle, stored)
    }
    // end snippet: searching-query
    try store.read { tx in
        func ids(_ query: String) throws -> [Int64] { try tx.query(Article.self).where(.matches(\.body, query)).ids() }
        check(try ids("lmdb readers") == [1])
        check(try tx.query(Article.self).where("body SEARCH %@", "lmdb OR sqlite").ids() == [1, 2, 5])
        check(try ids("database NOT sqlite") == [1])
        check(try ids(#""memory map""#) == [5])
        check(try ids("transact*") == [1])
        check(try ids("NEAR(readers writer, 3)") == [1, 2])
        check(try ids("NEAR(readers writer, 2)") == [], "NEAR's distance")
        check(try ids("title:swift") == [1])
        check(try ids("swift") == [3], "an unscoped word searches the body alone")
        check(try tx.query(Article.self).where(.matches(\.body, "lmdb") && \.section == "storage").ids() == [1, 5])
        check(try ids("lmbd") == [], "no typo tolerance unless asked")
    }
    // snippet: searching-typos
    try store.read { tx in
        let exact = try tx.query(Article.self).where(.matches(\.body, "raeders")).ids()                  // []
        let swapped = try tx.query(Article.self).where(.matches(\.body, "raeders", typos: true)).ids()   // [1, 2]
        let twoEdits = try tx.query(Article.self).where("body SEARCH[t] %@", "tranzaktion").ids()        // [1]
        let short = try tx.query(Article.self).where(.matches(\.body, "lmbd", typos: true)).ids()        // []: 4 letters
        print(exact, swapped, twoEdits, short)
    }
    // end snippet: searching-typos
    try store.read { tx in
        check(try tx.query(Article.self).where(.matches(\.body, "raeders")).ids() == [])
        check(try tx.query(Article.self).where(.matches(\.body, "raeders", typos: true)).ids() == [1, 2])
        check(try tx.query(Article.self).where("body SEARCH[t] %@", "tranzaktion").ids() == [1])
        check(try tx.query(Article.self).where(.matches(\.body, "tranzaktion")).ids() == [])
        check(try tx.query(Article.self).where(.matches(\.body, "lmbd", typos: true)).ids() == [], "4 letters: never typo-matched")
        check(try tx.query(Article.self).where(.matches(\.body, "raeders", typos: true)).explain().description.contains("raeders~1"))
    }
    // snippet: searching-rank
    try store.read { tx in
        let request = tx.query(Article.self).where(.matches(\.body, "lmdb OR readers")).sorted(by: .relevance).limit(10)
        for (article, score) in try request.scored() {                                    // best first: 1, 2, 5
            print(article.id, score, try request.snippet(article.body, field: "body", words: 6, open: "[", close: "]"))
        }
        // 1 0.66… [LMDB] maps the database into memory…
        print(try request.highlight("LMDB readers never block", field: "body", open: "<b>", close: "</b>"))
        // <b>LMDB readers</b> never block
    }
    // end snippet: searching-rank
    try store.read { tx in
        let request = tx.query(Article.self).where(.matches(\.body, "lmdb OR readers")).sorted(by: .relevance).limit(10)
        let scored = try request.scored()
        check(scored.first?.record.id == 1 && scored.count == 3, "\(scored.map(\.record.id))")
        check(zip(scored, scored.dropFirst()).allSatisfy { $0.score >= $1.score } && scored.allSatisfy { $0.score > 0 })
        let snippet = try request.snippet(scored[0].record.body, field: "body", words: 6, open: "[", close: "]")
        check(snippet == "[LMDB] maps the database into memory…", snippet)
        check(try request.highlight("LMDB readers never block", field: "body", open: "<b>", close: "</b>") == "<b>LMDB readers</b> never block")
    }
    // snippet: searching-languages
    try store.read { tx in
        let tokyo = try tx.query(Article.self).where(.matches(\.body, "東京")).ids()             // [4]: CJK text as bigrams
        let folded = try tx.query(Article.self).where(.matches(\.body, "KOLN strasse eleve")).ids()   // [4]: Köln, Straße, l'élève
        print(tokyo, folded)
    }
    // end snippet: searching-languages
    try store.read { tx in
        check(try tx.query(Article.self).where(.matches(\.body, "東京")).ids() == [4])
        check(try tx.query(Article.self).where(.matches(\.body, "東")).ids() == [4])
        check(try tx.query(Article.self).where(.matches(\.body, "KOLN strasse eleve")).ids() == [4])
    }
    try store.write { tx in
        try tx.insert([Recipe(id: 1, text: "She runs to the Lord of the Rings"), Recipe(id: 2, text: "Lord Rings, running")])
    }
    try store.read { tx in
        check(try tx.query(Recipe.self).where(.matches(\.text, "running")).ids() == [1, 2])
        check(try tx.query(Recipe.self).where(.matches(\.text, #""lord of the rings""#)).ids() == [1])
        check(try tx.query(Recipe.self).where(.matches(\.text, "the")).ids() == [])
    }
}

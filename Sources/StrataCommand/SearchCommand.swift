import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Print the records of an entity that best match a full-text query.",
        discussion: """
            Examples:
              strata search app.strata Post 'lmdb swift' --limit 10
              strata search app.strata Post '"exact phrase" OR lmd*' --field body --where 'city == "Berlin"'

            Prints one line a record, best first: its primary key, its relevance (BM25) and a snippet \
            of the searched field with the matched words between [ and ]. The query searches --field, \
            the first field of the entity's first full-text index unless given; field: scopes in the \
            query name the index's other fields. Words must all occur unless joined by OR; NOT, \
            "phrases", prefix* and NEAR(a b, 5) as in SEARCH conditions. With --typos, a word of 5 or \
            more letters also matches words one edit away (a letter added, removed, changed or two \
            swapped), a word of 9 or more two edits away, as SEARCH[t] does.
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The entity to search.") var entity: String
    @Argument(help: "The full-text query.") var query: String
    @Option(help: "The full-text indexed field to search (default: the first of the entity's first full-text index).") var field: String?
    @Option(name: .customLong("where"), help: "A further condition in the format language.") var condition: String?
    @Option(parsing: .unconditional, help: "At most N records.") var limit: Int = 10
    @Option(parsing: .unconditional, help: "Words in each snippet.") var words: Int = 12
    @Flag(help: "Tolerate typos: words of 5+ letters match one edit away, 9+ letters two (SEARCH[t]).") var typos = false
    @OptionGroup var timeout: TimeoutOption

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1 (it is \(limit))") }
        if words < 1 { throw ValidationError("--words must be at least 1 (it is \(words))") }
    }

    func run() throws {
        let store = try timeout.openStore(self.store, readOnly: true)
        try store.read { tx in
            guard let field = try field ?? tx.fullTextIndexes(of: entity).first?.fields.first else {
                throw StrataError(.invalidQuery, "\(entity) has no full-text index to search; add one to its schema (\"fullText\": [\"body\"])",
                                  entity: entity)
            }
            var request = try tx.query(entity: entity).where(typos ? "%K SEARCH[t] %@" : "%K SEARCH %@", field, query)
            if let condition { request = try request.where(condition, arguments: []) }
            request = request.sorted(by: .relevance).limit(limit)
            var text = ""
            for (record, score) in try request.scored() {
                var value = ""
                if case .string(let stored)? = record.fields.first(where: { $0.key == field })?.value { value = stored }
                let snippet = try request.snippet(value, field: field, words: words, open: "[", close: "]")
                let key: String
                switch record.key {
                case .string(let value): key = value
                case .int(let value): key = String(value)
                default: key = "\(record.key.jsonValue)"
                }
                text += "\(key.escapingControlCharacters())\t\(String(format: "%.4f", score))\t\(snippet.escapingControlCharacters())\n"
            }
            Terminal.write(text)
        }
    }
}

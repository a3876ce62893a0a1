/// One term place of a phrase: the cursors of the terms that may stand there (one, or a prefix's
/// or typo's expansions) and its offset from the phrase's first term.
final class PhraseSlot {
    let cursors: [any PostingCursor]
    let offset: Int
    /// The best inverse document frequency among its terms.
    let idf: Double
    private(set) var document: DocumentID = 0

    /// A slot of the terms `terms` (with their cursors) in the fields of `fields` (all when nil).
    init(terms: [(term: String, cursor: any PostingCursor)], offset: Int, fields: UInt64?, context: ScoringContext) throws {
        cursors = terms.map(\.cursor)
        self.offset = offset
        idf = try terms.map { try context.idf(of: $0.term, in: fields) }.max() ?? 0
    }

    func advance(to target: DocumentID) throws {
        for cursor in cursors where cursor.document < target { try cursor.advance(to: target) }
        document = cursors.map(\.document).min() ?? .max
    }

    /// The positions in `field` of the current document, of any of its terms, ascending.
    func positions(in field: Int) throws -> [UInt32] {
        var merged: [UInt32] = []
        for cursor in cursors where cursor.document == document && cursor.frequencies[cursor.frequencies.startIndex + field] > 0 {
            merged += try cursor.positions(in: field)
        }
        return cursors.count == 1 ? merged : Array(Set(merged)).sorted()
    }
}

/// Phrases (``TextMatch`` with several terms) and `NEAR` groups: documents whose fields hold the
/// items' terms at the right positions. Its frequency in a field is the number of places a phrase
/// starts there (for `NEAR`, the number of places where the last item of a group within the
/// distance starts);
/// its score is BM25 of those frequencies with the sum of its terms' idf.
final class PositionalScorer: Scorer {
    var document: DocumentID = 0
    var maxScore = 0.0
    var cost = 0
    /// The items: a phrase each (one item and no distance for a plain phrase).
    let items: [[PhraseSlot]]
    let distance: Int?
    let fields: UInt64?
    let context: ScoringContext
    let idf: Double
    private var frequencies: [UInt32] = []

    init(items: [[PhraseSlot]], distance: Int?, fields: UInt64?, context: ScoringContext) {
        self.items = items
        self.distance = distance
        self.fields = fields
        self.context = context
        idf = items.joined().reduce(0) { $0 + $1.idf }
        maxScore = context.ranking.ceiling(idf: idf)
        cost = items.joined().map { $0.cursors.reduce(0) { $0 + $1.postingCount } }.min() ?? 0
    }

    private var slots: [PhraseSlot] { Array(items.joined()) }

    func advance(to target: DocumentID) throws {
        var target = target
        let slots = slots
        search: while true {
            for slot in slots {
                if slot.document < target { try slot.advance(to: target) }
                if slot.document == .max { document = .max; return }
                if slot.document > target {
                    target = slot.document
                    continue search
                }
            }
            frequencies = try countMatches()
            if frequencies.contains(where: { $0 > 0 }) {
                document = target
                return
            }
            target += 1
        }
    }

    /// The matches in each field of the current document (all slots are on it).
    private func countMatches() throws -> [UInt32] {
        let fieldCount = context.reader.fieldCount
        var counts = [UInt32](repeating: 0, count: fieldCount)
        for field in 0..<fieldCount {
            if let fields, fields & (1 << UInt64(field)) == 0 { continue }
            var starts: [[Int]] = []
            for item in items {
                let itemStarts = try Self.phraseStarts(item, field: field)
                if itemStarts.isEmpty { break }
                starts.append(itemStarts)
            }
            guard starts.count == items.count else { continue }
            if let distance {
                let lengths = items.map { ($0.map(\.offset).max() ?? 0) + 1 }
                counts[field] = UInt32(Self.nearGroups(starts, lengths: lengths, distance: distance))
            } else {
                counts[field] = UInt32(starts[0].count)
            }
        }
        return counts
    }

    /// The positions in `field` where the phrase `slots` starts.
    static func phraseStarts(_ slots: [PhraseSlot], field: Int) throws -> [Int] {
        let lists = try slots.map { Set(try $0.positions(in: field).map(Int.init)) }
        let first = try slots[0].positions(in: field).map { Int($0) - slots[0].offset }
        return first.filter { start in
            start >= 0 && zip(slots, lists).allSatisfy { slot, positions in positions.contains(start + slot.offset) }
        }
    }

    /// How many places end a group: a group is one occurrence of each item (starting at `starts`,
    /// each ascending, spanning `lengths`) in which no item ends more than `distance` words before
    /// the last item starts, SQLite FTS5's rule for `NEAR`; it is counted once per start of its last
    /// item. For each start of any item taken as the last, each item's first occurrence in its
    /// window (a pointer per item that only moves forward, so the walk is linear in the occurrences).
    static func nearGroups(_ starts: [[Int]], lengths: [Int], distance: Int) -> Int {
        var next = [Int](repeating: 0, count: starts.count)
        var count = 0
        var previous = Int.min
        for last in starts.joined().sorted() where last != previous {
            previous = last
            var within = true
            for (item, list) in starts.enumerated() {
                let earliest = last - lengths[item] - distance
                while next[item] < list.count && list[next[item]] < earliest { next[item] += 1 }
                // Every occurrence of the item ends too early for this last start and for any later one.
                guard next[item] < list.count else { return count }
                if list[next[item]] > last { within = false }
            }
            if within { count += 1 }
        }
        return count
    }

    func score() throws -> Double {
        let frequency = context.ranking.weightedFrequency(frequencies, fields: fields)
        return context.ranking.score(idf: idf, frequency: frequency, length: try context.length(of: document),
                                     averageLength: context.averageLength)
    }
}

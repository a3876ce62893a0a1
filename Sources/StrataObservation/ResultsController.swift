/// A query's results in sections, as a list on screen shows them, with what changed since the
/// previous snapshot in the terms NSFetchedResultsController used: positions deleted, inserted,
/// moved and updated, and sections deleted and inserted. A UI (or a terminal view) animates
/// the change by applying it to what it shows.
public struct ResultsChange<Record: Sendable & Equatable>: Sendable, Equatable {
    /// One section: the records with one value of the section key, in query order.
    public struct Section: Sendable, Equatable {
        /// The section key's value shared by the section's records.
        public var key: QueryValue
        /// The section's records, in query order.
        public var records: [Record]
    }

    /// A row position: its section's index and its index in the section.
    public struct Position: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The index of the section, from 0.
        public var section: Int
        /// The index of the row in its section, from 0.
        public var item: Int
        public static func < (a: Self, b: Self) -> Bool { (a.section, a.item) < (b.section, b.item) }
        public var description: String { "[\(section), \(item)]" }
    }

    /// The results now.
    public var sections: [Section]
    /// Sections of the previous snapshot that are gone, and sections of this one that are new.
    public var deletedSections: [Int] = []
    /// Sections of this snapshot that the previous one did not have, by their index now.
    public var insertedSections: [Int] = []
    /// Rows gone, by their previous position; rows new, by their position now.
    public var deleted: [Position] = []
    /// Rows new, by their position now.
    public var inserted: [Position] = []
    /// Rows whose place changed (another section, or their order relative to the other rows
    /// that stayed), from the previous position to the position now.
    public var moved: [(from: Position, to: Position)] = []
    /// Rows that stayed in place but whose record changed, by their position now.
    public var updated: [Position] = []

    /// True when nothing changed: no section or row deleted, inserted, moved or updated.
    public var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }

    public static func == (a: Self, b: Self) -> Bool {
        a.sections == b.sections && a.deletedSections == b.deletedSections && a.insertedSections == b.insertedSections
            && a.deleted == b.deleted && a.inserted == b.inserted && a.updated == b.updated
            && a.moved.map(\.from) == b.moved.map(\.from) && a.moved.map(\.to) == b.moved.map(\.to)
    }

    /// The change from `old` to `new` sections; `identity` tells which records are the same one.
    init(from old: [Section], to new: [Section], identity: (Record) -> AnyHashable) {
        sections = new
        let oldKeys = old.map(\.key), newKeys = new.map(\.key)
        deletedSections = oldKeys.indices.filter { !newKeys.contains(oldKeys[$0]) }
        insertedSections = newKeys.indices.filter { !oldKeys.contains(newKeys[$0]) }
        /// Each record's position, record and section key by identity, and the identities in order.
        func rows(of sections: [Section]) -> ([AnyHashable: (position: Position, record: Record, section: QueryValue)], [AnyHashable]) {
            var rows: [AnyHashable: (position: Position, record: Record, section: QueryValue)] = [:]
            var order: [AnyHashable] = []
            for (s, section) in sections.enumerated() {
                for (i, record) in section.records.enumerated() {
                    let id = identity(record)
                    rows[id] = (Position(section: s, item: i), record, section.key)
                    order.append(id)
                }
            }
            return (rows, order)
        }
        let (oldRows, oldOrder) = rows(of: old)
        let (newRows, newOrder) = rows(of: new)
        deleted = oldOrder.filter { newRows[$0] == nil }.map { oldRows[$0]!.position }
        inserted = newOrder.filter { oldRows[$0] == nil }.map { newRows[$0]!.position }
        // Rows in both stay where the longest run of them keeps its order and section; the others move.
        let common = oldOrder.filter { newRows[$0] != nil && newRows[$0]!.section == oldRows[$0]!.section }
        let newIndex = Dictionary(uniqueKeysWithValues: newOrder.enumerated().map { ($1, $0) })
        let staying = Set(Self.longestIncreasing(common.map { newIndex[$0]! }).map { newOrder[$0] })
        for id in newOrder {
            guard let before = oldRows[id], let after = newRows[id] else { continue }
            if staying.contains(id) {
                if before.record != after.record { updated.append(after.position) }
            } else {
                moved.append((before.position, after.position))
            }
        }
    }

    /// The indices (into `values`' values) of a longest strictly increasing subsequence, in order.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 { result.append(values[cursor]); cursor = previous[cursor] }
        return result.reversed()
    }
}

extension Store {
    /// A results controller: the records `query` selects, grouped into sections by `section`
    /// (the query should sort by it first), delivered with the change since the previous
    /// delivery (``ResultsChange``), now and after every commit that changes them. The first
    /// delivery inserts everything.
    ///
    /// ```swift
    /// for try await change in store.observeSections(User.self, by: \.lastName, { try $0.sorted(by: "lastName,firstName") }) {
    ///     table.apply(deleted: change.deleted, inserted: change.inserted, moved: change.moved, updated: change.updated)
    /// }
    /// ```
    public func observeSections<T: Record & Equatable, Key: QueryValueConvertible>(
        _ type: T.Type, by section: KeyPath<T, Key> & Sendable,
        _ query: @escaping @Sendable (QueryRequest<T>) throws -> QueryRequest<T> = { $0 }
    ) -> AsyncThrowingMapSequence<Observation<[T]>, ResultsChange<T>> {
        let previous = PreviousSections<T>()
        return observe(type, query).map { records in
            var sections: [ResultsChange<T>.Section] = []
            for record in records {
                let key = record[keyPath: section].queryValue
                if sections.last?.key == key { sections[sections.count - 1].records.append(record) }
                else { sections.append(.init(key: key, records: [record])) }
            }
            let change = ResultsChange(from: previous.sections, to: sections) { AnyHashable($0.primaryKeyValue) }
            previous.sections = sections
            return change
        }
    }
}

/// The sections of the last delivery, kept by the mapping closure, which runs once at a time.
private final class PreviousSections<T: Sendable & Equatable>: @unchecked Sendable {
    // @unchecked: the AsyncSequence's map runs its closure for one element at a time.
    var sections: [ResultsChange<T>.Section] = []
}

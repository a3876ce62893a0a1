@_spi(Format) import StrataFormat
import LMDB

/// Runs a ``QueryPlan``: walks its access path, checks the whole predicate on each candidate's
/// stored bytes (no Codable decoding), orders and windows the matches, and hands out the stored
/// key and bytes of each result. Decoding is left to the caller, so `count()` and `ids()` never
/// decode a record.
///
/// Not generic over the record type: nothing here depends on it, and one compiled copy serves
/// every entity (no specialization per record type, no generic overhead per candidate). A class,
/// so the closures of its walks capture one reference rather than copy a dozen.
///
/// When the plan's access path is exact (``QueryPlan/exactAccess``), a candidate it yields is
/// checked against the residual predicate alone, unless the index key it was found under was
/// cut (``IndexKey/mayBeTruncated(_:)``): then against the whole predicate.
package final class QueryExecutor {
    package let transaction: ReadTransaction
    package let context: EntityContext
    package let plan: QueryPlan
    package let predicate: QueryPredicate
    /// The fields the predicate and the sort read, resolved to field ids once, when first read (a
    /// candidate of an exact access path needs them only when found under a cut key).
    package private(set) lazy var selection = FieldSelection(predicate: predicate, orderings: plan.sort,
                                                             fields: context.schema.fields, texts: texts)
    /// The predicate an exact access path's candidates are checked against (the residual), and
    /// the fields it and the sort read; the whole predicate's when the access is not exact.
    package let checked: QueryPredicate
    private let checkedSelection: FieldSelection
    /// True when candidates not under a cut key are checked against the residual alone.
    package let exact: Bool
    /// The kind of the entity's primary key values (of a compound key's first field), for
    /// encoding looked-up keys and key range bounds.
    let keyKind: ValueKind
    /// The entity's records, read once rather than through `context` for every candidate.
    package let records: Database
    /// The sources a merged index scan (``QueryPlan/merge``) merges: the distinct keys of a
    /// primary key merge, the stretches of an ordered one; empty for every other plan.
    package let mergeSources: [IndexMerge.Source]
    /// The query's time limit, cancellation and `MATCHES` cost cap, checked between candidates;
    /// nil when it has none of them.
    package let budget: QueryBudget?
    /// The candidates the access path has yielded so far, and the matches among them (the
    /// actual rows `analyze()` reports); counted by the walks here and in `+Relevance`.
    var candidatesRead = 0, matchesFound = 0
    /// The target of each `SEARCH` comparison of the predicate.
    package let texts: [FieldComparison: TextSearchTarget]
    /// The stored full-text indexes the access path read, by index name (their blocks read are
    /// what `analyze()` reports).
    var textIndexesRead: [String: StoredTextIndex] = [:]

    package init(transaction: ReadTransaction, context: EntityContext, plan: QueryPlan, predicate: QueryPredicate,
         timeout: Duration? = nil) throws {
        self.transaction = transaction
        self.context = context
        self.plan = plan
        self.predicate = predicate
        let texts = try TextSearchTarget.targets(of: predicate, schema: context.schema)
        self.texts = texts
        // A compound key's ranges bound its first field.
        keyKind = try transaction.primaryKeyFieldKinds(of: context)?.first?.kind ?? transaction.primaryKeyKind(of: context)
        records = context.records
        // A MATCHES needs a budget even without a time limit: its cost cap reports through it.
        var matches = false
        predicate.forEachComparison { if $0.op == .matches { matches = true } }
        budget = QueryBudget.make(entity: context.name, timeout: timeout, transaction: transaction, always: matches)
        var exact = plan.exactAccess
        var mergeSources: [IndexMerge.Source] = []
        switch plan.access {
        case .primaryKeyLookup:
            // A key found is the looked-up value's encoding, which no other value shares.
            exact = exact && keyKind != .other
        case .indexScan(let name, let fields, let condition):
            guard let merge = plan.merge, let database = context.indexes[name], !fields.isEmpty else { break }
            let probe = IndexProbe(transaction: transaction, database: database, fields: fields)
            switch merge {
            case .primaryKey:
                // A single field's points are their keys; any other condition's keys are read.
                let keys = if fields.count == 1, case .points(let values) = condition { probe.pointKeys(values) }
                           else { try probe.distinctKeys(condition, limit: .max) ?? [] }
                mergeSources = keys.map { .duplicates(database, key: $0) }
                // A primary key merge reports no cut keys: exact only when none was cut.
                exact = exact && keys.allSatisfy { !IndexKey.mayBeTruncated($0) }
            case .laterFields(let after):
                // Its entries whose keys may be cut are reported as runs, and checked.
                mergeSources = (probe.stretches(condition, after: after) ?? []).map {
                    .stretch(database, $0.bounds, leadingLength: $0.leadingLength)
                }
            }
        default: break
        }
        self.mergeSources = mergeSources
        self.exact = exact
        checked = exact ? plan.residual : predicate
        checkedSelection = FieldSelection(predicate: checked, orderings: plan.sort, fields: context.schema.fields, texts: texts)
        if !exact { selection = checkedSelection }
    }

    /// A matching record: its stored primary key and bytes.
    package typealias Match = (key: [UInt8], bytes: [UInt8])

    /// Calls `body` with each result in order, after `offset`, at most `limit` times.
    package func forEachResult(_ body: (Match) throws -> Bool) throws {
        if let best = try relevanceTop() {
            for match in best { guard try body(match) else { return } }
            return
        }
        if plan.orderFromAccess {
            var skipped = 0, delivered = 0
            try forEachMatchInAccessOrder { match in
                if skipped < plan.offset { skipped += 1; return true }
                if let limit = plan.limit, delivered >= limit { return false }
                delivered += 1
                guard try body(match) else { return false }
                return plan.limit.map { delivered < $0 } ?? true
            }
            return
        }
        for match in try sortedMatches() {
            guard try body(match) else { return }
        }
    }

    /// The matches ordered by `plan.sort` then primary key, windowed; a LIMIT keeps only the best
    /// `offset + limit` while collecting (top-k): once that many are kept, a match that does not
    /// precede the worst kept one is dropped at once.
    private func sortedMatches() throws -> ArraySlice<Match> {
        let keep = plan.limit.map { plan.offset + $0 }
        var rows: [(match: Match, sortKey: [QueryValue])] = []
        var worstKept: (match: Match, sortKey: [QueryValue])?
        let comparator = ResultOrder(orderings: plan.sort)
        let relevance = plan.sort.contains(where: \.isRelevance) ? try transaction.relevanceScores(of: predicate, texts: texts, context, read: &textIndexesRead) : [:]
        try forEachMatch { match, values, _ in
            let row = (match: match, sortKey: plan.sort.map {
                $0.isRelevance ? .double(relevance[match.key] ?? 0) : values.queryValue(at: $0.field) ?? .null
            })
            if let worstKept, !comparator.precedes(row, worstKept) { return true }
            rows.append(row)
            if let keep, rows.count >= max(2 * keep, 1024) {
                rows.sort { comparator.precedes($0, $1) }
                rows.removeLast(rows.count - keep)
                worstKept = rows.last
            }
            return true
        }
        rows.sort { comparator.precedes($0, $1) }
        let end = min(rows.count, keep ?? rows.count)
        let start = min(plan.offset, end)
        return rows[start..<end].map(\.match)[...]
    }

    /// Calls `body` with every candidate that meets the predicate, in access order, its selected
    /// fields, and the stored index key it was found under when that key was cut (nil otherwise).
    package func forEachMatch(_ body: (Match, StoredFieldValues, _ cutKey: [UInt8]?) throws -> Bool) throws {
        var offsets: [Int] = []
        let prepared = PreparedPredicate(checked, selection: checkedSelection, texts: texts)
        // The whole predicate, for candidates under cut keys of an exact access; prepared when the first comes.
        var whole: PreparedPredicate?
        // `field == text` alone (a scan's usual filter): compared in place, the field values
        // read only for the matches.
        let text: [UInt8]? = if case .textEquality(_, let utf8, _) = prepared, checkedSelection.names.count == 1 { utf8 } else { nil }
        // Nothing left to check and no field to sort by (an exact access path's usual case): the
        // candidate's fields are not read at all.
        let takesAll = if case .constant(true) = prepared, checkedSelection.names.isEmpty { true } else { false }
        let noValues = StoredFieldValues.none
        let budget = self.budget
        // A match the budget stopped answers false: its answer is not used, the budget's error is thrown.
        func passes(_ predicate: PreparedPredicate, _ values: StoredFieldValues) throws -> Bool {
            let passed = predicate.evaluate(on: values)
            if let budget, budget.failure != nil { try budget.check() }
            return passed
        }
        func found(_ match: Match, _ values: StoredFieldValues, _ cutKey: [UInt8]?) throws -> Bool {
            matchesFound += 1
            return try body(match, values, cutKey)
        }
        // A scan's record that fails the text equality without its bytes is passed over uncopied.
        let admits = text.flatMap(scanAdmission)
        try QueryBudget.run(budget) { try forEachLazyCandidate(admitting: admits) { key, bytes, cutKey in
            try budget?.tick()
            candidatesRead += 1
            if takesAll, cutKey == nil || !exact { return try found((key(), bytes), noValues, cutKey) }
            if let text, cutKey == nil || !exact, checkedSelection.singleTextEquals(bytes, text) == false { return true }
            if exact, cutKey != nil {
                if whole == nil { whole = PreparedPredicate(predicate, selection: selection, texts: texts) }
                let values = try fieldValues(of: bytes, selection, key, &offsets)
                guard try passes(whole!, values) else { return true }
                return try found((key(), bytes), values, cutKey)
            }
            let values = try fieldValues(of: bytes, checkedSelection, key, &offsets)
            guard try passes(prepared, values) else { return true }
            return try found((key(), bytes), values, cutKey)
        } }
    }

    /// The fields of `selection` in a candidate's stored bytes; corrupt bytes throw, naming the key.
    @inline(__always)
    package func fieldValues(of bytes: [UInt8], _ selection: FieldSelection, _ key: () -> [UInt8],
                             _ offsets: inout [Int]) throws -> StoredFieldValues {
        do {
            return try selection.values(of: bytes, reusing: &offsets)
        } catch {
            var error = StoredFieldValues.corrupt(entity: context.name, cause: error)
            error.key = transaction.describeStoredKey(key())
            error.message += " (key \(error.key ?? "?"))"
            throw error
        }
    }

    /// Calls `body` with the stored key (copied on demand: a scan lends it) and bytes of every
    /// candidate of the access path, and the index key it was found under when that key was cut.
    /// A forward scan first offers each record's bytes, lent, to `admits` (``scanAdmission(_:)``),
    /// and passes over those it refuses.
    private func forEachLazyCandidate(admitting admits: ((Span<UInt8>) throws -> Bool)? = nil,
                                      _ body: (_ key: () -> [UInt8], _ bytes: [UInt8], _ cutKey: [UInt8]?) throws -> Bool) throws {
        if case .fullScan = plan.access, !plan.reversed {
            try transaction.lmdb(entity: context.name) { try scanRecords(admitting: admits, body) }
        } else {
            try forEachCandidate { key, bytes, cutKey in try body({ key }, bytes, cutKey) }
        }
    }

    /// Every record in key order (those `admits` refuses passed over), each record's bytes in one
    /// reused buffer and its key copied only when asked for. Inside the transaction's `lmdb` funnel.
    private func scanRecords(admitting admits: ((Span<UInt8>) throws -> Bool)? = nil,
                             _ body: (_ key: () -> [UInt8], _ bytes: [UInt8], _ cutKey: [UInt8]?) throws -> Bool) throws {
        try transaction.withCursor(context.records) { cursor in
            var buffer: [UInt8] = []
            guard try cursor.first() else { return }
            try cursor.forEachEntry(buffer: &buffer, admitting: admits) { key, bytes in try body({ Self.copy(key) }, bytes, nil) }
        }
    }

    /// Calls `body` with the primary key and bytes of every candidate of the access path, in
    /// access order, and the stored index key of an index scan's entry when it was cut
    /// (``IndexKey/mayBeTruncated(_:)``), nil for every other entry and access path.
    private func forEachCandidate(_ candidate: ([UInt8], [UInt8], _ cutKey: [UInt8]?) throws -> Bool) throws {
        func body(_ key: [UInt8], _ bytes: [UInt8]) throws -> Bool { try candidate(key, bytes, nil) }
        try transaction.lmdb(entity: context.name) {
            switch plan.access {
            case .fullScan where plan.reversed:
                let probe = IndexProbe(transaction: transaction, database: records,
                                       field: IndexedField(path: [context.schema.primaryKey], collation: .binary, kind: keyKind))
                try probe.walk(.all, reversed: true, body)
            case .fullScan:
                try scanRecords { key, bytes, _ in try body(key(), bytes) }
            case .primaryKeyLookup(_, let values):
                var bytes: [UInt8] = []
                for key in lookupKeys(values) {
                    guard try record(key, into: &bytes) else { continue }
                    guard try body(key, bytes) else { return }
                }
            case .primaryKeyRange(_, let range):
                let probe = IndexProbe(transaction: transaction, database: records,
                                       field: IndexedField(path: [context.schema.primaryKey], collation: .binary, kind: keyKind))
                // Walking the records database: the "index key" is the primary key, the value the record.
                try probe.walk(.range(range), reversed: plan.reversed, body)
            case .union(let parts) where parts.allSatisfy(\.yieldsSortedKeysPerPoint):
                try forEachMerged(parts.flatMap(mergeSources), body)
            case .indexScan where plan.merge != nil:
                var merge = try IndexMerge(transaction: transaction, sources: mergeSources, chunk: mergeChunk,
                                           descending: plan.reversed)
                var candidates = PrefetchedCandidates(self, inKeyOrder: false)
                while let entry = try merge.nextEntry() {
                    guard try candidates.add(entry.primaryKey, cutKey: entry.runKey, to: candidate) else { return }
                }
                try candidates.flush(to: candidate)
            case .union(let parts), .intersection(let parts):
                // Primary keys from every part, combined, then the records in key order.
                var combined: Set<[UInt8]>?
                for part in parts {
                    let keys = try primaryKeys(of: part)
                    if case .union = plan.access { combined = (combined ?? []).union(keys) }
                    else { combined = combined.map { $0.intersection(keys) } ?? keys }
                }
                let ordered = (combined ?? []).sorted(by: OrderedKey.precedes)
                var bytes: [UInt8] = []
                for key in plan.reversed ? ordered.reversed() : ordered {
                    guard try record(key, into: &bytes) else { continue }
                    guard try body(key, bytes) else { return }
                }
            case .textSearch(let access):
                // The matches' keys, ascending; the records in that order.
                let keys = try textMatches(of: access).map(\.key)
                var bytes: [UInt8] = []
                for key in plan.reversed ? keys.reversed() : keys {
                    guard try record(key, into: &bytes) else { continue }
                    guard try body(key, bytes) else { return }
                }
            case .indexScan(let name, let fields, let condition):
                guard let database = context.indexes[name], !fields.isEmpty else { return }
                let probe = indexProbe(database, fields, for: condition)
                let isMultiValue = context.schema.indexes.first { $0.name == name }?.isMultiValue ?? false
                var seen = Set<[UInt8]>()
                var candidates = PrefetchedCandidates(self, inKeyOrder: !plan.reversed && condition.readsOneKey(ofFields: fields.count))
                try probe.walk(condition, reversed: plan.reversed) { indexKey, primaryKey in
                    if isMultiValue { guard seen.insert(primaryKey).inserted else { return true } }
                    return try candidates.add(primaryKey, cutKey: IndexKey.mayBeTruncated(indexKey) ? indexKey : nil, to: candidate)
                }
                try candidates.flush(to: candidate)
            }
        }
    }
}

extension QueryExecutor {
    /// A probe of an index of `fields` for `condition`; it has the entity's key (one field, of its
    /// stored keys' kind) only when `condition` pins every field and bounds the primary key after them.
    package func indexProbe(_ database: Database, _ fields: [IndexedField], for condition: QueryPlan.IndexCondition) -> IndexProbe {
        var primaryKey: IndexedField?
        if case .compound(let leading, .range) = condition, leading.count == fields.count, context.schema.primaryKeyFields.count <= 1 {
            primaryKey = IndexedField(path: [context.schema.primaryKey], collation: .binary, kind: keyKind)
        }
        return IndexProbe(transaction: transaction, database: database, fields: fields, primaryKey: primaryKey)
    }

    /// Replaces `bytes` with the stored record of `key` and returns true, or returns false when
    /// there is none. Reusing one buffer spares an allocation per candidate; a buffer that a
    /// caller kept is not overwritten (copy-on-write gives this one fresh storage).
    @inline(__always)
    package func record(_ key: [UInt8], into bytes: inout [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { key in try transaction.copyStoredBytes(forKey: key, in: records, into: &bytes) }
    }

    /// The bytes of a lent key.
    package static func copy(_ key: Span<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.count)
        for index in key.indices { bytes.append(key[index]) }
        return bytes
    }
}

/// The total order of results: the orderings, then the stored primary key.
package struct ResultOrder {
    package let orderings: [QueryOrdering]

    package func precedes(_ a: (match: (key: [UInt8], bytes: [UInt8]), sortKey: [QueryValue]),
                  _ b: (match: (key: [UInt8], bytes: [UInt8]), sortKey: [QueryValue])) -> Bool {
        for (index, ordering) in orderings.enumerated() {
            let order = QueryValueOrder.compare(a.sortKey[index], b.sortKey[index], options: ordering.options)
            if order != 0 { return ordering.ascending ? order < 0 : order > 0 }
        }
        return a.match.key.lexicographicallyPrecedes(b.match.key)
    }
}

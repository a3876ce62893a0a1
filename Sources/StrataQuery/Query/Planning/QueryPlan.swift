/// How a query runs: an access path that yields candidate records in some order, then a filter,
/// an ordering and a window. Produced by the query planner, run by the executor, and printed by
/// ``description`` as one stable line, e.g.
/// `IndexScan(User.lastName[cd] = "bluth") → Filter(luckyNumber > 5) → TopK(luckyNumber desc, 2)`.
public struct QueryPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where candidate records come from.
    public enum Access: Sendable, Hashable {
        /// Records looked up by primary key, in key order.
        case primaryKeyLookup(field: String, keys: [QueryValue])
        /// A primary key range, walked in key order.
        case primaryKeyRange(field: String, range: ValueRange)
        /// Index entries whose leading field meets `condition` (points for equality and IN, a
        /// range, a prefix), or, for a compound condition, whose first fields equal its leading
        /// values and whose next field meets its next condition; walked in index order.
        case indexScan(index: String, fields: [IndexedField], condition: IndexCondition)
        /// Every record, in primary key order.
        case fullScan
        /// The records a full-text query matches (a `SEARCH` comparison), found in the postings
        /// of its full-text index and read in primary key order.
        case textSearch(TextAccess)
        /// The records any of the parts yields (OR), read once each in primary key order.
        indirect case union([Access])
        /// The records every part yields (AND), read in primary key order; the parts' index
        /// entries are compared before any record is read.
        indirect case intersection([Access])
    }

    /// What part of an index an index scan reads.
    public enum IndexCondition: Sendable, Hashable {
        /// Equal to one of these values (one for `==`, several for `IN`).
        case points([QueryValue])
        /// Within a range of the leading field.
        case range(ValueRange)
        /// Strings starting with this prefix (`BEGINSWITH`), compared by the index's collation.
        case prefix(String)
        /// The whole index (to deliver its order).
        case all
        /// Equal to one of `leading[i]` on each of a compound index's first fields (one value for
        /// `==`, several for `IN`), then `next` on the field after them (`.all`: any value). Each
        /// combination of leading values is one stretch of keys, walked in key order. When
        /// `leading` pins every field of the index (a single-field index too), `next` is a range
        /// of the primary key: the entries under each key are sorted primary keys, as if the key
        /// were the index's last field.
        indirect case compound(leading: [[QueryValue]], next: IndexCondition)
    }

    /// Bounds on a value; nil for an open end.
    public struct ValueRange: Sendable, Hashable {
        /// The lower bound; nil for none.
        public var lower: QueryValue?
        /// The lower bound itself is in the range.
        public var lowerInclusive: Bool
        /// The upper bound; nil for none.
        public var upper: QueryValue?
        /// The upper bound itself is in the range.
        public var upperInclusive: Bool

        /// A range; with no bounds, every value.
        public init(lower: QueryValue? = nil, lowerInclusive: Bool = true, upper: QueryValue? = nil, upperInclusive: Bool = true) {
            self.lower = lower
            self.lowerInclusive = lowerInclusive
            self.upper = upper
            self.upperInclusive = upperInclusive
        }
    }

    /// The entity queried.
    public var entity: String
    /// How candidate records are found: a full scan, key lookups or a range, or an index scan.
    public var access: Access
    /// The access path is walked backwards (for a descending order it delivers).
    public var reversed: Bool
    /// The part of the predicate the access path does not guarantee; `.constant(true)` when none.
    /// The executor checks candidates against it alone when the access is exact
    /// (`exactAccess`), otherwise against the whole predicate (index keys may be folded).
    public var residual: QueryPredicate
    /// True when every candidate of the access path meets the conjuncts left out of `residual`,
    /// except candidates found under a cut index key (``IndexKey/maxLength``), which the
    /// executor checks against the whole predicate: a key lookup, or an index scan whose keys
    /// order and compare values as the predicate does (the comparison's collation, values of the
    /// index's kind, no nil), on a single field or on a compound index's fields.
    var exactAccess = false
    /// The primary key's name, as `explain` names a compound condition's bound on it (the entries
    /// under a key of an index whose every field is pinned).
    var keyField = "key"
    /// The requested order, when the access path does not deliver it and records must be sorted.
    public var sort: [QueryOrdering]
    /// True when the access path yields records in the requested order.
    public var orderFromAccess: Bool
    /// The orderings an index walk delivers when it serves the order (`orderFromAccess`), empty
    /// otherwise. Index keys cut at ``IndexKey/maxLength`` hold values that differ only past the
    /// cut under one key, in primary key order: the executor re-sorts each such run by these
    /// orderings (then primary key) before any offset or limit applies.
    var accessOrder: [QueryOrdering] = []
    /// How the executor merges the stretches of an index scan into the order the plan takes
    /// from it, so that a LIMIT stops it early; nil when the scan is walked as stored. Explained
    /// as `IndexMerge(…)`.
    public var merge: Merge?

    /// How the stretches of an index scan are merged (``merge``).
    public enum Merge: Sendable, Hashable {
        /// Each distinct key's entries (an index key's duplicates are sorted primary keys) merged
        /// into primary key order: several points of a field, the few keys of a compound index
        /// under its leading values, or a short range.
        case primaryKey
        /// The stretch of keys under each combination of the index's first `fields` fields' values
        /// (an `IN` on them) merged by the rest of the key, then primary key: the order of the
        /// index's later fields, as if the first ones were pinned to one value each. A query
        /// `lastName IN {…} ORDER BY luckyNumber LIMIT 10` over an index on both fields reads
        /// about ten entries per value, sorts nothing, and stops.
        case laterFields(after: Int)
    }
    /// Records skipped after filtering and ordering.
    public var offset: Int
    /// The most records returned; nil for all.
    public var limit: Int?
    /// The planner's estimate of the candidate records the access path yields.
    public var estimatedRows: Int
    /// The relationship conditions run first, each as a query of the related entity whose
    /// result became a set of keys in this plan's predicate (see ``SemiJoin``).
    public var semiJoins: [SemiJoin] = []

    /// A relationship condition (`ANY notes.text == 'x'`, `company.name BEGINSWITH 'ac'`,
    /// `notes.@count > 2`) answered by a query of the related entity, with its own plan, whose
    /// matches' keys replace the condition: `id IN {…}` or `companyID IN {…}`.
    public struct SemiJoin: Sendable, Hashable {
        /// The relationship as the predicate names it (`notes`).
        public var relationship: String
        /// How the keys were found: `Note.userID`, the reference field read from the matches.
        public var through: String
        /// The plan of the related entity's query; nil for `@count`, which counts index entries.
        public var plan: QueryPlan? {
            get { boxedPlan.first }
            set { boxedPlan = newValue.map { [$0] } ?? [] }
        }
        /// An array, as a struct cannot hold an optional of itself.
        private var boxedPlan: [QueryPlan] = []
        /// The keys it produced.
        public var keys: Int

        /// A semi-join of `relationship`, whose `plan` produced `keys` keys, read through `through`.
        public init(relationship: String, through: String, plan: QueryPlan?, keys: Int) {
            self.relationship = relationship
            self.through = through
            self.keys = keys
            self.plan = plan
        }
    }
}

extension QueryPlan.IndexCondition {
    /// True for a condition on a compound index's fields past the first.
    package var isCompound: Bool { if case .compound = self { true } else { false } }
}

extension QueryPlan.Access {
    /// True for key lookups and points of a single-field index: each point's primary keys are
    /// sorted (an index key's duplicates), so the executor can merge them into primary key order.
    package var yieldsSortedKeysPerPoint: Bool {
        switch self {
        case .primaryKeyLookup: true
        case .indexScan(_, let fields, .points): fields.count == 1
        default: false
        }
    }
}

extension RecordMapper {
    /// The top-level fields of a mapped record. An entity of many fields holds only the fields
    /// the record gives (null or a value), so that mapping, merging and writing a record cost
    /// what its own keys cost, not the entity's field count, when records each add a key of
    /// their own; an entity of few fields holds a slot per field, cheapest when records give most.
    ///
    /// As a collection it reads as one slot per field of the entity, `.absent` where the record
    /// gives nothing (a view for tests and rare lookups; the hot paths read ``dense`` or
    /// ``sparse``). Two arrays rather than an enum of them, which made every mapped record's
    /// copy an outlined call.
    struct Slots: Sendable, RandomAccessCollection {
        /// Dense: a slot per field (empty when sparse).
        private(set) var dense: [Slot]
        /// Sparse: the fields the record gives, by ascending field index, none `.absent` (empty
        /// when dense).
        private(set) var sparse: [(field: Int, slot: Slot)]
        let isSparse: Bool
        /// How many fields the entity has.
        let endIndex: Int
        var startIndex: Int { 0 }

        /// A slot per field.
        init(dense slots: [Slot]) {
            dense = slots
            sparse = []
            isSparse = false
            endIndex = slots.count
        }

        /// The slots of the fields a record gives, by ascending field index (none `.absent`), of an
        /// entity of `fieldCount` fields.
        init(sparse given: [(field: Int, slot: Slot)], fieldCount: Int) {
            assert(zip(given, given.dropFirst()).allSatisfy { $0.field < $1.field } && given.allSatisfy { if case .absent = $0.slot { false } else { true } })
            dense = []
            sparse = given
            isSparse = true
            endIndex = fieldCount
        }

        /// How many fields the record gives (null or a value).
        var givenCount: Int {
            isSparse ? sparse.count : dense.count { if case .absent = $0 { false } else { true } }
        }

        /// The slot of the field at `field`: `.absent` when the record gives none.
        subscript(field: Int) -> Slot {
            get {
                guard isSparse else { return dense[field] }
                let position = Self.position(of: field, in: sparse)
                return position < sparse.count && sparse[position].field == field ? sparse[position].slot : .absent
            }
            set {
                guard isSparse else {
                    dense[field] = newValue
                    return
                }
                let position = Self.position(of: field, in: sparse)
                let present = position < sparse.count && sparse[position].field == field
                switch (newValue, present) {
                case (.absent, true): sparse.remove(at: position)
                case (.absent, false): break
                case (_, true): sparse[position].slot = newValue
                case (_, false): sparse.insert((field, newValue), at: position)
                }
            }
        }

        /// Where `field` is or would go in `given`.
        private static func position(of field: Int, in given: [(field: Int, slot: Slot)]) -> Int {
            var low = 0, high = given.count
            while low < high {
                let middle = (low + high) / 2
                if given[middle].field < field { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// Entities of more fields than this map records into sparse slots, tracking the fields each
    /// record touches; below, a pass over every field costs less than the tracking.
    static let sparseAbove = 64

    /// Puts the fields the record being read touched in field order, the order conversions run
    /// (and fail) in; records usually list their keys in that order already.
    func sortTouched() {
        var previous = -1
        for field in touched {
            guard field > previous else {
                touched.sort()
                return
            }
            previous = field
        }
    }

    /// Forgets the previous record's fields: only those it touched.
    func resetTouched() {
        for field in touched {
            chosen[field] = nil
            pending[field] = .absent
        }
        fieldVisits &+= touched.count
        touched.removeAll(keepingCapacity: true)
    }
}

extension RecordMapper {
    /// The top-level fields of a mapped record, holding only the fields the record gives (null or
    /// a value): so that mapping, merging and writing a record cost what its own keys cost, not
    /// what the entity's field count costs, when records each add a key of their own.
    ///
    /// As a collection it reads as one slot per field of the entity, `.absent` where the record
    /// gives nothing (a view for tests and rare lookups; the hot paths walk ``given``).
    struct Slots: Sendable, RandomAccessCollection {
        /// The fields the record gives, by ascending field index, none `.absent`.
        private(set) var given: [(field: Int, slot: Slot)] = []
        /// How many fields the entity has.
        let endIndex: Int
        var startIndex: Int { 0 }

        /// No field given yet, of an entity of `fieldCount` fields.
        init(fieldCount: Int, capacity: Int = 0) {
            endIndex = fieldCount
            given.reserveCapacity(capacity)
        }

        /// The slot of `field`, after the slots of every field given so far (a lower index).
        mutating func append(_ field: Int, _ slot: Slot) {
            assert(given.last.map { $0.field < field } ?? true, "slots are appended in field order")
            if case .absent = slot { return }
            given.append((field, slot))
        }

        /// The slot of the field at `field`: `.absent` when the record gives none.
        subscript(field: Int) -> Slot {
            get {
                let position = Self.position(of: field, in: given)
                return position < given.count && given[position].field == field ? given[position].slot : .absent
            }
            set {
                let position = Self.position(of: field, in: given)
                let present = position < given.count && given[position].field == field
                switch (newValue, present) {
                case (.absent, true): given.remove(at: position)
                case (.absent, false): break
                case (_, true): given[position].slot = newValue
                case (_, false): given.insert((field, newValue), at: position)
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

/// The top-level fields one query reads (its predicate's and its orderings'), resolved to field
/// ids once per query, so that checking a candidate record costs one pass over the head of its
/// top-level map: no dictionary, no field names read, and the pass stops once every selected
/// field is found.
struct FieldSelection {
    /// The selected top-level field names, distinct.
    let names: [String]
    /// The slot of each stored field id (-1 for an unselected one), indexed by id.
    private let slots: [Int]
    /// How many selected names have a stored id (the others are always absent).
    private let stored: Int

    init(predicate: QueryPredicate, orderings: [QueryOrdering], fields: FieldTable) {
        var names: [String] = []
        func select(_ path: [String]) {
            if let first = path.first, !names.contains(first) { names.append(first) }
        }
        predicate.forEachComparison { select($0.field) }
        orderings.forEach { select($0.field) }
        self.init(names: names, fields: fields)
    }

    /// The selection of the top-level fields `names`.
    init(names: [String], fields: FieldTable) {
        self.names = names
        let ids = names.map { fields.id(for: $0) }
        var slots = [Int](repeating: -1, count: (ids.compactMap { $0 }.max() ?? -1) + 1)
        for (slot, id) in ids.enumerated() { if let id, id >= 0 { slots[id] = slot } }
        self.slots = slots
        stored = slots.filter { $0 >= 0 }.count
    }

    /// The values of `bytes`' selected fields, reusing `offsets`' storage.
    func values(of bytes: [UInt8], reusing offsets: inout [Int]) throws(CBORReadFailure) -> SelectedFieldValues {
        let reader = CBORReader(bytes: bytes)
        if offsets.count == names.count {
            for slot in offsets.indices { offsets[slot] = -1 }
        } else {
            offsets = [Int](repeating: -1, count: names.count)
        }
        var offset = 0
        let head = try reader.readHead(at: &offset)
        guard head.major == .map else { throw .mismatch(offset: 0, expected: "a map") }
        var missing = stored
        var remaining = min(head.argument, UInt64(bytes.count))
        while missing > 0, remaining > 0 {
            remaining -= 1
            let keyHead = try reader.readHead(at: &offset)
            guard keyHead.major == .unsigned else { throw .mismatch(offset: offset, expected: "a field id") }
            if keyHead.argument < UInt64(slots.count) {
                let slot = slots[Int(keyHead.argument)]
                if slot >= 0, offsets[slot] < 0 {
                    offsets[slot] = offset
                    missing -= 1
                }
            }
            try reader.skipItemQuickly(at: &offset)
        }
        return SelectedFieldValues(reader: reader, names: names, offsets: offsets)
    }
}

extension FieldSelection {
    /// For a selection of one stored field: whether that field of `bytes` is a text string of
    /// exactly these UTF-8 bytes, compared in place (what ``PreparedPredicate`` does for
    /// `field == text`) without making a ``SelectedFieldValues``; nil when the field is absent,
    /// not a text string, or the bytes do not read as a map (the caller then evaluates in full,
    /// which also reports corrupt bytes).
    func singleTextEquals(_ bytes: [UInt8], _ utf8: [UInt8]) -> Bool? {
        guard names.count == 1, stored == 1 else { return nil }
        let reader = CBORReader(bytes: bytes)
        var offset = 0
        guard let head = try? reader.readHead(at: &offset), head.major == .map else { return nil }
        var remaining = min(head.argument, UInt64(bytes.count))
        while remaining > 0 {
            remaining -= 1
            guard let keyHead = try? reader.readHead(at: &offset), keyHead.major == .unsigned else { return nil }
            if keyHead.argument < UInt64(slots.count), slots[Int(keyHead.argument)] == 0 {
                guard let text = try? reader.readHead(at: &offset), text.major == .text else { return nil }
                guard text.argument == UInt64(utf8.count) else { return false }
                guard bytes.count - offset >= utf8.count else { return nil }
                for index in utf8.indices where bytes[offset + index] != utf8[index] { return false }
                return true
            }
            guard (try? reader.skipItemQuickly(at: &offset)) != nil else { return nil }
        }
        return nil
    }
}

/// A record's selected fields (``FieldSelection``), read from its CBOR bytes on demand.
struct SelectedFieldValues: FieldValues {
    let reader: CBORReader
    let names: [String]
    /// The offset of each selected field's value, -1 when absent.
    let offsets: [Int]

    func value(at path: [String]) -> QueryValue? {
        guard let first = path.first, let slot = names.firstIndex(of: first), offsets[slot] >= 0 else { return nil }
        return try? reader.queryValue(at: offsets[slot], remaining: path.dropFirst())
    }
}

extension QueryPredicate {
    /// Calls `body` with every comparison in the predicate.
    func forEachComparison(_ body: (FieldComparison) -> Void) {
        switch self {
        case .constant: break
        case .comparison(let comparison): body(comparison)
        case .and(let operands), .or(let operands): operands.forEach { $0.forEachComparison(body) }
        case .not(let operand): operand.forEachComparison(body)
        }
    }
}

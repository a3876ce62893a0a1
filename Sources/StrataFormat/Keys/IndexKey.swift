/// The bytes of index keys: order-preserving encodings of the indexed values, concatenated for
/// compound indexes, with strings folded by the index's collation.
package enum IndexKey {
    /// Index keys longer than this are cut to exactly this length. LMDB refuses keys over 511
    /// bytes; a cut key no longer identifies its value, so every reader treats a key of this
    /// length as a prefix and checks the records it leads to against the query.
    package static let maxLength = 480

    /// Appends `value`'s key, folding strings when the collation asks for it.
    static func append<Value: IndexableValue>(_ value: Value, collation: IndexCollation, to key: inout [UInt8]) {
        if collation != .binary, let collatable = value as? any CollatableIndexValue {
            collatable.appendCollatedKey(collation, to: &key)
        } else {
            value.appendOrderedKey(to: &key)
        }
    }

    /// The key bytes of a query value in an index field of `collation`, or nil for a value that
    /// has no key encoding (lists, data).
    package static func encode(_ value: QueryValue, kind: ValueKind = .other, collation: IndexCollation) -> [UInt8]? {
        var key: [UInt8] = []
        // One allocation: a tag and at most 16 payload bytes, or a string's bytes, escapes aside, and its terminator.
        if case .string(let text) = value { key.reserveCapacity(text.utf8.count + 4) } else { key.reserveCapacity(17) }
        if kind == .double, case .int(let integer) = value {
            Double(integer).appendOrderedKey(to: &key)
            return key
        }
        switch value {
        case .null: Optional<Int64>.none.appendOrderedKey(to: &key)
        case .bool(let value): value.appendOrderedKey(to: &key)
        case .int(let value): value.appendOrderedKey(to: &key)
        case .uint(let value): value.appendOrderedKey(to: &key)
        case .wideInt(let value): OrderedKey.appendWideInteger(value, to: &key)
        case .double(let value): value.appendOrderedKey(to: &key)
        case .string(let value): append(value, collation: collation, to: &key)
        case .date(let value): value.appendOrderedKey(to: &key)
        case .uuid(let value): value.appendOrderedKey(to: &key)
        case .data, .list: return nil
        }
        return key
    }

    /// Appends the key of a text given as its UTF-8 bytes (a stored record's) in an index field of
    /// `collation`: the string key's encoding itself, for the keys built straight from stored bytes
    /// (`appendDirectKey`). Takes binary-collated ASCII alone; false for any other text (`key` is
    /// then undefined), which is keyed from its `String` by ``encode(_:kind:collation:)``.
    package static func appendText(utf8: UnsafeBufferPointer<UInt8>, collation: IndexCollation, to key: inout [UInt8]) -> Bool {
        guard collation == .binary else { return false }
        // Non-ASCII is validated as UTF-8 (and folded where a collation asks) on the general path.
        return OrderedKey.appendString(utf8, to: &key) { $0 < 0x80 }
    }

    /// The key bytes that every string key starting with `prefix` begins with (the encoding
    /// without its terminator).
    package static func prefix(_ prefix: String, collation: IndexCollation) -> [UInt8] {
        var key: [UInt8] = []
        append(prefix, collation: collation, to: &key)
        return Array(key.dropLast(2))   // the 0x00 0x00 terminator
    }

    /// The key that finds `value` among keys of `kind`, for a lookup: as ``encode(_:kind:collation:)``,
    /// except that numbers are converted as comparisons convert them (numbers compare by value
    /// across kinds): a double with an integral value finds that integer in integer keys, one
    /// with a fraction none (nil).
    package static func lookupKey(_ value: QueryValue, kind: ValueKind, collation: IndexCollation) -> [UInt8]? {
        if kind == .integer, case .double(let number) = value {
            guard number.rounded() == number, number >= -9_223_372_036_854_775_808.0, number < 9_223_372_036_854_775_808.0 else { return nil }
            return encode(.int(Int64(number)), kind: kind, collation: collation)
        }
        return encode(value, kind: kind, collation: collation)
    }

    /// `key` cut to ``maxLength`` when longer.
    package static func stored(_ key: [UInt8]) -> [UInt8] {
        key.count > maxLength ? Array(key.prefix(maxLength)) : key
    }

    /// The entries to remove and to add to move a record's index entries from the stored keys
    /// `old` to `new`: keys in both stay. Keys cut to the maximum length may coincide, so each
    /// entry is removed or added once. A record has one key per index, or one per element of a
    /// multi-value field: arrays beat sets here.
    package static func moves(from old: [[UInt8]], to new: [[UInt8]]) -> (removed: [[UInt8]], added: [[UInt8]]) {
        if old == new { return ([], []) }
        let old = old.count > 1 ? Array(Set(old)) : old
        let new = new.count > 1 ? Array(Set(new)) : new
        return (old.filter { !new.contains($0) }, new.filter { !old.contains($0) })
    }

    /// True when `key` is the key of nil in an index of one field: such keys are exempt from
    /// uniqueness, as NULL is in SQL.
    package static func isNilKey(_ key: [UInt8], fields: Int) -> Bool {
        fields == 1 && key.count == 1 && key[0] == OrderedKey.nilTag
    }

    /// True when a stored key may have been cut, so that matches need checking against records.
    package static func mayBeTruncated(_ key: [UInt8]) -> Bool { key.count >= maxLength }
}

/// Values whose index key depends on a collation: strings, and optionals of them.
protocol CollatableIndexValue {
    func appendCollatedKey(_ collation: IndexCollation, to key: inout [UInt8])
}

extension String: CollatableIndexValue {
    func appendCollatedKey(_ collation: IndexCollation, to key: inout [UInt8]) {
        Collation.fold(self, collation.options).appendOrderedKey(to: &key)
    }
}

extension Optional: CollatableIndexValue where Wrapped == String {
    func appendCollatedKey(_ collation: IndexCollation, to key: inout [UInt8]) {
        switch self {
        case .none: Optional<String>.none.appendOrderedKey(to: &key)
        case .some(let string): Optional(Collation.fold(string, collation.options)).appendOrderedKey(to: &key)
        }
    }
}

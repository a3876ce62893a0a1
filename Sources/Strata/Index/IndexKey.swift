/// The bytes of index keys: order-preserving encodings of the indexed values, concatenated for
/// compound indexes, with strings folded by the index's collation.
enum IndexKey {
    /// Index keys longer than this are cut to exactly this length. LMDB refuses keys over 511
    /// bytes; a cut key no longer identifies its value, so every reader treats a key of this
    /// length as a prefix and checks the records it leads to against the query.
    static let maxLength = 480

    /// Appends `value`'s key, folding strings when the collation asks for it.
    static func append<Value: IndexableValue>(_ value: Value, collation: IndexCollation, to key: inout [UInt8]) {
        if collation != .binary, let collatable = value as? any CollatableIndexValue {
            collatable.appendCollatedKey(collation, to: &key)
        } else {
            value.appendOrderedKey(to: &key)
        }
    }

    /// `key` cut to ``maxLength`` when longer.
    static func stored(_ key: [UInt8]) -> [UInt8] {
        key.count > maxLength ? Array(key.prefix(maxLength)) : key
    }

    /// True when a stored key may have been cut, so that matches need checking against records.
    static func mayBeTruncated(_ key: [UInt8]) -> Bool { key.count >= maxLength }
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

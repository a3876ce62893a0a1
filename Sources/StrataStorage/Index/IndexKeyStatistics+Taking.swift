@_spi(Format) import StrataFormat
import LMDB

extension IndexKeyStatistics {
    /// Takes the statistics of an index by walking its keys once (`MDB_NEXT_NODUP`, each key's
    /// entries counted with `mdb_cursor_count`), copying and decoding only the first key of each
    /// leading value: an encoded value is a prefix of no other, so a key that starts with the
    /// previous leading value's bytes has that leading value. A key cut inside its leading value
    /// counts as its own leading value. Inside the transaction's `lmdb` funnel.
    package static func take(of database: Database, fields: [IndexedField], in transaction: ReadTransaction) throws -> IndexKeyStatistics {
        let total = try transaction.entryCount(in: database)
        let threshold = max(2, total / frequentShare)
        var distinctLeading = 0, distinctKeys = 0
        var frequent: [Frequent] = []
        var leading: [UInt8] = [], leadingEntries = 0
        var key: [UInt8] = []
        func finish() {
            guard distinctLeading > 0, leadingEntries >= threshold else { return }
            let position = frequent.firstIndex { $0.entries < leadingEntries } ?? frequent.endIndex
            guard position < frequentLimit else { return }
            frequent.insert(Frequent(key: leading, entries: leadingEntries), at: position)
            if frequent.count > frequentLimit { frequent.removeLast() }
        }
        try transaction.withCursor(database) { cursor in
            guard try cursor.first() else { return }
            try cursor.forEachKey { stored, entries in
                distinctKeys += 1
                if distinctLeading == 0 || !KeyBounds.starts(stored, with: leading) {
                    finish()
                    key.removeAll(keepingCapacity: true)
                    stored.appendBytes(to: &key)
                    var end = 0
                    if let length = Self.stringLength(key) {
                        end = length
                    } else if (try? OrderedKey.queryValue(from: key, at: &end)) == nil {
                        end = key.count
                    }
                    leading.removeAll(keepingCapacity: true)
                    leading.append(contentsOf: key[..<end])
                    distinctLeading += 1
                    leadingEntries = 0
                }
                leadingEntries += entries
                return true
            }
        }
        finish()
        return IndexKeyStatistics(fields: fields, entries: total, distinctLeading: distinctLeading, distinctKeys: distinctKeys,
                               frequent: frequent)
    }

    /// The length of the string a key starts with (its tag, its bytes with `0x00` escaped as
    /// `0x00 0xFF`, its `0x00 0x00` terminator), found without decoding it; nil when the key does
    /// not start with a whole string.
    package static func stringLength(_ key: [UInt8]) -> Int? {
        guard key.first == OrderedKey.stringTag else { return nil }
        var position = 1
        while position + 1 < key.count {
            if key[position] == 0 {
                if key[position + 1] == 0 { return position + 2 }
                position += 2   // an escaped 0x00
            } else {
                position += 1
            }
        }
        return nil
    }

    /// True for the indexes that keep statistics: compound, not multi-value, and led by a field
    /// that no single-field index of the entity covers (with the same collation).
    package static func kept(for descriptor: IndexDescriptor, in schema: EntitySchema) -> Bool {
        guard descriptor.fields.count > 1, !descriptor.isMultiValue else { return false }
        return !schema.indexes.contains { $0.fields == [descriptor.fields[0]] && !$0.isMultiValue }
    }
}

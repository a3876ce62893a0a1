import Foundation

/// The one walk over a stored record's top-level map: a CBOR map whose keys are field ids
/// (``FieldTable``) and whose values are the fields' items, in stored order.
///
/// A cursor reads the map head once, then hands out one entry at a time: ``nextField(in:)`` reads
/// the entry's field id and leaves ``position`` at its value; the caller then either reads the value
/// there (moving ``position`` past it) or calls ``skipValue(in:)``, which hands back the value's
/// byte range for comparison or copying. The cursor is positions only; each walk passes it the
/// ``CBORReader`` of the bytes, so copying a cursor (to look ahead, or to resume a walk) costs no
/// reference counting. Every user of a record's top-level fields walks them through this type: the
/// query filter and the index fast path (``locate(_:slots:offsets:stored:)``), the importer's merge
/// and unchanged check (``entries(in:)``, ``matches(_:count:entries:)``), relationship edits,
/// `StoredRecord` and the JSON export, the sampler of stored field types, the encoder's message for an
/// out-of-range date (``field(holding:in:)``), ``FieldReader``, and the `Codable` decoder's absent-field
/// scan and end-of-record check (its in-order and indexed lookups stay its own: ARCHITECTURE.md §6).
///
/// Stored bytes are untrusted: the map head's count is checked against the bytes that remain, every
/// key must be an unsigned integer, every value is skipped with its lengths checked, and failures are
/// ``CBORReadFailure``s with the byte offset, which callers turn into `.corruptRecord` errors naming
/// the entity and the key.
@_spi(Format) public struct RecordCursor {
    /// Where the next entry's key starts; after ``nextField(in:)``, where that entry's value starts.
    @usableFromInline package var position: Int
    /// The entries after the one ``nextField(in:)`` returned last.
    @usableFromInline private(set) var remaining: Int
    /// Where the map's first entry starts.
    @usableFromInline let entriesStart: Int
    /// How many entries the map head announces.
    @usableFromInline package let count: Int

    /// A cursor before the first entry of the record in `reader`'s bytes; throws when they do not
    /// start with a map head whose count the bytes can hold.
    @inlinable @inline(__always)
    package init(_ reader: CBORReader) throws(CBORReadFailure) {
        var offset = 0
        let head = try reader.readHead(at: &offset)
        guard head.major == .map else {
            throw .corrupt(offset: 0, reason: "a record is a map, found \(reader.describeItem(at: 0))")
        }
        count = try reader.checkedLength(head, at: offset, start: 0, perItem: 2)
        remaining = count
        position = offset
        entriesStart = offset
    }

    /// A cursor resuming a walk of a record map whose `count` entries start at `entriesStart`: at
    /// `position`, the key of entry number `index` (from 0).
    @inline(__always)
    init(resumingAt position: Int, entry index: Int, of count: Int, entriesStart: Int) {
        self.position = position
        self.remaining = count - index
        self.count = count
        self.entriesStart = entriesStart
    }

    /// The index (from 0) of the entry ``nextField(in:)`` returns next.
    @inline(__always)
    var entryIndex: Int { count - remaining }

    /// Reads the next entry's field id and moves ``position`` to its value; nil when no entry is
    /// left. Throws when the key is not an unsigned integer.
    @inlinable @inline(__always)
    package mutating func nextField(in reader: CBORReader) throws(CBORReadFailure) -> Int? {
        guard remaining > 0 else { return nil }
        let start = position
        let head = try reader.readHead(at: &position)
        guard head.major == .unsigned, head.argument <= UInt64(Int.max) else {
            throw .corrupt(offset: start, reason: "record map key is not a field id")
        }
        remaining -= 1
        return Int(head.argument)
    }

    /// Moves ``position`` past the value at it and returns the value's byte range.
    @inlinable @inline(__always)
    @discardableResult
    package mutating func skipValue(in reader: CBORReader) throws(CBORReadFailure) -> Range<Int> {
        let start = position
        try reader.skipItemQuickly(at: &position)
        return start..<position
    }

    /// Moves past the entry at the cursor, whose key and value the caller read itself, up to `end`
    /// (``FieldReader``'s reads of the field it expects next).
    @inline(__always)
    mutating func pass(entryEndingAt end: Int) {
        position = end
        remaining -= 1
    }

    /// Moves to the entry after entry number `index` (from 0), whose value ends at `end`: how a
    /// reader that found and read a value itself moves the cursor past it.
    @inline(__always)
    mutating func move(pastEntry index: Int, valueEnd end: Int) {
        position = end
        remaining = count - index - 1
    }

    /// A cursor over the entries before this one's next entry, from the first.
    @inline(__always)
    var entriesBefore: RecordCursor {
        RecordCursor(resumingAt: entriesStart, entry: 0, of: entryIndex, entriesStart: entriesStart)
    }

    /// Walks the entries left, then checks that no bytes follow the map.
    package mutating func finish(in reader: CBORReader) throws(CBORReadFailure) {
        while try nextField(in: reader) != nil { try skipValue(in: reader) }
        guard position == reader.bytes.count else {
            throw .corrupt(offset: position, reason: "\(reader.bytes.count - position) bytes follow the record")
        }
    }

    /// Every entry of the map: field id and the byte range of its value, in stored order; then
    /// checks that no bytes follow the map.
    package mutating func entries(in reader: CBORReader) throws(CBORReadFailure) -> [(id: Int, value: Range<Int>)] {
        var entries: [(id: Int, value: Range<Int>)] = []
        entries.reserveCapacity(remaining)
        while let id = try nextField(in: reader) { entries.append((id, try skipValue(in: reader))) }
        try finish(in: reader)
        return entries
    }

    /// A record map built from the entries of the record map `bytes` by `body`, which appends
    /// (field id, value bytes) pairs: what a migration's rewrite and a default's filling write.
    package static func rebuild(_ bytes: [UInt8], _ body: ([(id: Int, value: Range<Int>)], (Int, ArraySlice<UInt8>) -> Void) throws -> Void)
        throws -> [UInt8] {
        let reader = CBORReader(bytes: bytes)
        var cursor = try RecordCursor(reader)
        let entries = try cursor.entries(in: reader)
        var writer = CBORWriter(capacity: bytes.count + 16)
        writer.bytes.append(CBOR.emptyMapByte)
        var count = 0
        try body(entries) { id, value in
            writer.writeHead(.unsigned, UInt64(id))
            writer.bytes.append(contentsOf: value)
            count += 1
        }
        writer.patchHead(at: 0, .map, count: count)
        return writer.bytes
    }

    /// Finds the fields a selection reads: `slots[id]` is the slot of field `id` (-1, or an id past
    /// the table: not selected), and `offsets[slot]` becomes the offset of that field's value (the
    /// first, if the record holds it twice), or stays -1 when the record does not hold it. Stops
    /// once `stored` slots are filled (the selected fields that have an id), so a record's tail is
    /// not read when the fields it needs come first.
    @inlinable @inline(__always)
    package mutating func locate(_ reader: CBORReader, slots: [Int], offsets: inout [Int], stored: Int) throws(CBORReadFailure) {
        var missing = stored
        while missing > 0, let id = try nextField(in: reader) {
            if id < slots.count {
                let slot = slots[id]
                if slot >= 0, offsets[slot] < 0 {
                    offsets[slot] = position
                    missing -= 1
                }
            }
            try skipValue(in: reader)
        }
    }

    /// Moves past the entries before the first one of field `id` and returns the offset of its
    /// value (``position``, at which the value is left unread); nil when no entry left is field `id`.
    @inlinable @inline(__always)
    package mutating func find(id: Int, in reader: CBORReader) throws(CBORReadFailure) -> Int? {
        while let stored = try nextField(in: reader) {
            if stored == id { return position }
            try skipValue(in: reader)
        }
        return nil
    }

    /// The field id of the top-level entry whose value holds the byte at `offset` of the record in
    /// `reader`'s bytes; nil when no entry's value does or the walk meets damaged bytes first (for
    /// messages about bytes the encoder just wrote: ``RecordEncoder``'s out-of-range dates).
    package static func field(holding offset: Int, in reader: CBORReader) -> Int? {
        guard var cursor = try? RecordCursor(reader) else { return nil }
        while let id = try? cursor.nextField(in: reader) {
            guard let value = try? cursor.skipValue(in: reader) else { return nil }
            if value.contains(offset) { return id }
        }
        return nil
    }

    /// Whether the item at `offset` of `reader`'s bytes is a text string of exactly the UTF-8 bytes
    /// `utf8`, compared in place; nil when it is not a text string or is cut short.
    @inlinable @inline(__always)
    package static func textEquals(_ reader: CBORReader, at offset: Int, _ utf8: [UInt8]) -> Bool? {
        guard let range = textRange(reader, at: offset) else { return nil }
        guard range.count == utf8.count else { return false }
        let bytes = reader.bytes
        var index = range.lowerBound
        for byte in utf8 {
            if bytes[index] != byte { return false }
            index += 1
        }
        return true
    }

    /// The payload range of the text string at `offset` of `reader`'s bytes; nil when the item
    /// there is not a text string or its payload runs past the bytes.
    @inlinable @inline(__always)
    package static func textRange(_ reader: CBORReader, at offset: Int) -> Range<Int>? {
        var position = offset
        guard let head = try? reader.readHead(at: &position) else { return nil }
        return textRange(reader, head, payloadAt: position)
    }

    /// The payload range of a text string whose head `head` was read and whose payload starts at
    /// `position`; nil when `head` is not a text string's or the payload runs past the bytes.
    @inlinable @inline(__always)
    package static func textRange(_ reader: CBORReader, _ head: CBORReader.Head, payloadAt position: Int) -> Range<Int>? {
        guard head.major == .text, head.argument <= UInt64(reader.bytes.count - position) else { return nil }
        return position..<(position + Int(head.argument))
    }
}

extension RecordCursor {
    /// Whether the record `stored` is exactly the map of `count` entries that `entries` gives, in
    /// order (each a field id and the bytes of its value, which `entries` compares itself), with
    /// heads in their shortest form, as ``CBORWriter`` writes them. Compares in place, so that a
    /// stored record can be checked in the memory map without copying it.
    ///
    /// `entries` is called with a ``Match`` positioned after the map head; it returns false as
    /// soon as an entry differs.
    @inline(__always)
    package static func matches(_ stored: UnsafeBufferPointer<UInt8>, count: Int, entries: (inout Match) -> Bool) -> Bool {
        var match = Match(bytes: stored)
        guard match.head(.map, UInt64(count)), entries(&match) else { return false }
        return match.position == stored.count
    }

    /// A comparison of borrowed record bytes with expected entries (see ``matches(_:count:entries:)``).
    package struct Match {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        /// Whether the next entry is field `id` with exactly the value `value`; moves past it.
        @inline(__always)
        package mutating func entry(_ id: Int, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
            guard head(.unsigned, UInt64(id)), value.count <= bytes.count - position else { return false }
            if value.count > 0, memcmp(value.baseAddress!, bytes.baseAddress! + position, value.count) != 0 { return false }
            position += value.count
            return true
        }

        /// Whether the CBOR head `major`/`value` in its shortest form is at ``position``; moves past it.
        @inline(__always)
        mutating func head(_ major: CBOR.Major, _ value: UInt64) -> Bool {
            let m = major.rawValue << 5
            let (first, extra): (UInt8, Int) = switch value {
            case ..<24: (m | UInt8(value), 0)
            case ...0xFF: (m | 24, 1)
            case ...0xFFFF: (m | 25, 2)
            case ...0xFFFF_FFFF: (m | 26, 4)
            default: (m | 27, 8)
            }
            guard bytes.count - position > extra, bytes[position] == first else { return false }
            for index in 0..<extra where bytes[position + 1 + index] != UInt8(truncatingIfNeeded: value >> (8 * (extra - 1 - index))) {
                return false
            }
            position += 1 + extra
            return true
        }
    }
}

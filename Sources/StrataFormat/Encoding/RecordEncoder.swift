import Foundation

/// Encodes a `Codable` record as a CBOR map keyed by its entity's field ids.
///
/// ```swift
/// var fields = FieldTable()
/// let bytes = try RecordEncoder().encode(user, fields: &fields, entity: "User")
/// ```
///
/// The output is deterministic: the same value always gives the same bytes, in every process, because
/// the store compares old and new bytes to skip writes that change nothing. See ``CBOR`` for the format.
package struct RecordEncoder: Sendable {
    /// Whether ``FieldCodable`` types write their own fields (false in tests comparing with `Codable`).
    package var usesFieldCoding = true
    /// Whether a date outside ``DateParsing/storableRange`` fails the record (the store's writes
    /// set it: such a date would export as text no import reads; the codec itself holds any date).
    package var refusesUnstorableDates = false
    /// The type this coder was made for, with its ``FieldCodable`` conformance.
    private var known = FieldCodingConformance()

    package init() {}

    /// An encoder for many records of `type`.
    package init<T>(for type: T.Type) {
        known = FieldCodingConformance(for: type)
    }

    /// Whether this encoder was made for `type` (``init(for:)``).
    package func isMade<T>(for type: T.Type) -> Bool { known.isMade(for: type) }

    /// Encodes `value` as a CBOR map keyed by the field ids of `fields` (top level only), assigning ids to
    /// new names. `fields` changes only when encoding succeeds.
    package func encode<T: Encodable>(
        _ value: T, fields: inout FieldTable, entity: String
    ) throws(StrataError) -> [UInt8] {
        do {
            let conformance = known.of(T.self)
            if usesFieldCoding, let direct = conformance {
                var writer = FieldWriter(fields: fields)
                try direct.encodeFields(of: value, to: &writer)
                let outOfRange = writer.writer.outOfRangeDate, table = writer.fields
                if writer.fieldsChanged { fields = writer.fields }
                let bytes = writer.finish()
                if refusesUnstorableDates, let outOfRange { throw Self.dateOutOfRange(outOfRange, in: bytes, fields: table) }
                return bytes
            }
            let state = RecordEncodingState(fields: fields)
            try state.encodeRecord(value)
            if refusesUnstorableDates, let outOfRange = state.writer.outOfRangeDate { throw Self.dateOutOfRange(outOfRange, in: state.writer.bytes, fields: state.fields) }
            if state.fieldsChanged { fields = state.fields }
            return state.writer.bytes
        } catch let error as StrataError {
            var error = error
            if error.entity == nil { error.entity = entity; error.message = "\(entity): " + error.message }
            throw error
        } catch {
            throw StrataError(.invalidValue, "\(entity): the record cannot be encoded: \(error)", entity: entity, cause: error)
        }
    }
}

/// Marks collections whose iteration order is not part of their value, so their entries are sorted.
protocol UnorderedEncodableCollection {
    /// How many consecutive array items form one entry (a key and its value, for dictionaries whose keys
    /// are neither strings nor integers and so are encoded as flat key-value arrays).
    static var itemsPerEntry: Int { get }
}

extension Dictionary: UnorderedEncodableCollection { static var itemsPerEntry: Int { 2 } }
extension Set: UnorderedEncodableCollection { static var itemsPerEntry: Int { 1 } }

/// The one `Encoder` of an encoding run: it owns the output buffer and the stack of open containers.
///
/// Codable never says when a container ends, so container heads are one-byte placeholders patched when
/// the value that opened them returns, or when their parent writes its next entry (nested containers).
/// One object serves every nested value, so a record costs one allocation plus one per container box.
final class RecordEncodingState: Encoder {
    /// An open container, or a value slot that has not opened one yet.
    struct Frame {
        enum Kind { case pending, map, array, single }
        var kind: Kind
        /// Offset of the placeholder head.
        var start: Int
        var count = 0
        /// Distinguishes a frame from a later one at the same stack index, to catch stale containers.
        var id: Int
        /// The frame of a value being encoded by `encodeValue` (closed only by that call).
        var isSlot: Bool
        /// The record's own map, keyed by field ids.
        var isTopLevel = false
        /// Items per sorted entry, or 0 when entries keep their order.
        var itemsPerSortedEntry = 0
        /// Where this frame's entry offsets begin in `entryStarts`.
        var entriesBase = 0
    }

    // Exclusivity: these properties are touched only by this file's and the containers' own short
    // accesses, none of which spans a call into other code (user `encode(to:)` runs between accesses,
    // never inside one), so no two accesses can overlap. The runtime checks Swift would otherwise make
    // on every access of a class property are a large share of encoding time (the figures are in the
    // benchmark results), hence `@exclusivity(unchecked)`.
    @exclusivity(unchecked) var writer = CBORWriter(capacity: 256)
    @exclusivity(unchecked) var fields: FieldTable
    @exclusivity(unchecked) var frames: [Frame] = []
    @exclusivity(unchecked) var entryStarts: [Int] = []
    @exclusivity(unchecked) var nextFrameID = 0
    @exclusivity(unchecked) var currentSlot = 0
    /// Field id of the previous top-level key, to guess the next one without hashing its name.
    @exclusivity(unchecked) var lastFieldID = 0
    /// Whether `fields` was given new names, so the caller's table needs the grown copy.
    @exclusivity(unchecked) var fieldsChanged = false

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(fields: FieldTable) {
        self.fields = fields
        frames.reserveCapacity(8)
    }

    func encodeRecord<T: Encodable>(_ value: T) throws {
        pushFrame(kind: .pending, isSlot: true)
        frames[0].isTopLevel = true
        try value.encode(to: self)
        guard frames.count >= 1, frames[0].kind == .map || frames[0].kind == .pending else {
            throw StrataError(.invalidValue, "a record must encode as a keyed container (a struct), not a single value or an array")
        }
        try closeFrames(downTo: 0)
    }

    @inline(__always)
    func pushFrame(kind: Frame.Kind, isSlot: Bool) {
        nextFrameID += 1
        frames.append(Frame(kind: kind, start: writer.count, id: nextFrameID, isSlot: isSlot))
    }

    // MARK: Frames

    /// Checks that the container of `frame` is still open, closes its nested containers, and counts a
    /// new entry (recording where it starts when the entries will be sorted).
    @inline(__always)
    func beginEntry(frame: Int, id: Int) throws {
        if frames.count != frame + 1 { try closeFrames(downTo: frame + 1) }
        guard frame < frames.count, frames[frame].id == id else {
            throw StrataError(.invalidValue, id == -1
                ? "a value asked for two kinds of container, or a record encoded as something other than a struct"
                : "an encoding container was used after its value was finished")
        }
        if frames[frame].itemsPerSortedEntry != 0 { entryStarts.append(writer.count) }
        frames[frame].count += 1
    }

    /// Writes a keyed container's key: the field id at the top level, the key's text elsewhere.
    @inline(__always)
    func writeKey(_ key: some CodingKey, frame: Int) {
        // `stringValue` runs the key type's code: evaluated before the access to `writer` begins.
        let name = key.stringValue
        if frames[frame].isTopLevel {
            let id = fieldID(name)
            writer.writeHead(.unsigned, UInt64(id))
        } else {
            writer.writeText(name)
        }
    }

    @inline(__always)
    func fieldID(_ name: String) -> Int {
        let (id, isNew) = fields.assign(name, after: lastFieldID)
        if isNew { fieldsChanged = true }
        lastFieldID = id
        return id
    }

    /// Closes every frame at index `index` and above, innermost first.
    func closeFrames(downTo index: Int) throws {
        while frames.count > index {
            let frame = frames[frames.count - 1]
            if frame.isSlot && frames.count - 1 != index {
                throw StrataError(.invalidValue, "an encoding container was used while a nested value was being encoded")
            }
            switch frame.kind {
            case .pending:
                // The value opened no container: an empty map, as JSONEncoder writes `{}`.
                writer.bytes.append(CBOR.emptyMapByte)
            case .map, .array:
                if frame.itemsPerSortedEntry != 0 {
                    let perEntry = frame.kind == .map ? 1 : frame.itemsPerSortedEntry
                    sortEntries(from: frame.entriesBase, itemsPerEntry: perEntry)
                }
                writer.patchHead(at: frame.start, frame.kind == .map ? .map : .array, count: frame.count)
            case .single:
                break
            }
            if frame.itemsPerSortedEntry != 0 { entryStarts.removeSubrange(frame.entriesBase...) }
            frames.removeLast()
        }
    }

    /// Reorders the entries written since `entryStarts[base]` by their bytes (RFC 8949 §4.2.1 order).
    func sortEntries(from base: Int, itemsPerEntry: Int) {
        let starts = entryStarts[base...]
        guard starts.count > itemsPerEntry, let first = starts.first else { return }
        let end = writer.count
        var ranges: [Range<Int>] = []
        var index = starts.startIndex
        while index < starts.endIndex {
            let next = index + itemsPerEntry
            ranges.append(starts[index]..<(next < starts.endIndex ? starts[next] : end))
            index = next
        }
        let bytes = writer.bytes
        ranges.sort { bytes[$0].lexicographicallyPrecedes(bytes[$1]) }
        var sorted: [UInt8] = []
        sorted.reserveCapacity(end - first)
        for range in ranges { sorted.append(contentsOf: bytes[range]) }
        writer.bytes.replaceSubrange(first..<end, with: sorted)
    }

    // MARK: Containers for a slot

    func keyedContainer<Key: CodingKey>(keyedBy _: Key.Type, slot: Int) -> KeyedEncodingContainer<Key> {
        if frames.count > slot + 1 { try? closeFrames(downTo: slot + 1) }
        if slot < frames.count, frames[slot].kind == .pending {
            frames[slot].kind = .map
            frames[slot].start = writer.count
            writer.bytes.append(CBOR.emptyMapByte)
        }
        // A repeated request (a subclass and its superclass sharing one encoder) reuses the same map;
        // a request on a slot that holds something else gets a stale id and fails on first use.
        let id = slot < frames.count && frames[slot].kind == .map ? frames[slot].id : -1
        return KeyedEncodingContainer(RecordKeyedEncodingContainer<Key>(state: self, frame: slot, id: id))
    }

    func unkeyedContainer(slot: Int) -> any UnkeyedEncodingContainer {
        if frames.count > slot + 1 { try? closeFrames(downTo: slot + 1) }
        if slot < frames.count, frames[slot].kind == .pending, !frames[slot].isTopLevel {
            frames[slot].kind = .array
            frames[slot].start = writer.count
            writer.bytes.append(0x80)
        }
        let id = slot < frames.count && frames[slot].kind == .array ? frames[slot].id : -1
        return RecordUnkeyedEncodingContainer(state: self, frame: slot, id: id)
    }

    func singleValueContainer(slot: Int) -> any SingleValueEncodingContainer {
        let id = slot < frames.count && !frames[slot].isTopLevel ? frames[slot].id : -1
        return RecordSingleValueEncodingContainer(state: self, frame: slot, id: id)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        keyedContainer(keyedBy: type, slot: currentSlot)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { unkeyedContainer(slot: currentSlot) }

    func singleValueContainer() -> any SingleValueEncodingContainer { singleValueContainer(slot: currentSlot) }
}

/// The encoder handed out by `superEncoder()`: its containers fill the slot the parent reserved.
final class RecordSlotEncoder: Encoder {
    let state: RecordEncodingState
    let slot: Int

    init(state: RecordEncodingState, slot: Int) {
        self.state = state
        self.slot = slot
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        state.keyedContainer(keyedBy: type, slot: slot)
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { state.unkeyedContainer(slot: slot) }
    func singleValueContainer() -> any SingleValueEncodingContainer { state.singleValueContainer(slot: slot) }
}

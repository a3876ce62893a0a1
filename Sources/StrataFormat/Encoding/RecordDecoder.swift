import Foundation

/// Decodes a record that ``RecordEncoder`` wrote, from untrusted bytes.
///
/// ```swift
/// let user = try RecordDecoder().decode(User.self, from: bytes, fields: fields, entity: "User", key: "42")
/// ```
///
/// Fields the type no longer has are skipped, missing optional fields decode as nil, and every failure is
/// a ``StrataError``: `.corruptRecord` with the byte offset, `.typeMismatch` naming the field path, what
/// is stored and what was expected, `.missingField` naming the field. A `DecodingError` thrown by a type's
/// own `init(from:)` is kept as the error's `cause`.
package struct RecordDecoder: Sendable {
    /// Whether ``FieldCodable`` types read their own fields (false in tests comparing with `Codable`).
    package var usesFieldCoding = true
    /// The type this coder was made for, with its ``FieldCodable`` conformance.
    private var known = FieldCodingConformance()

    package init() {}

    /// A decoder for many records of `type`.
    package init<T>(for type: T.Type) {
        known = FieldCodingConformance(for: type)
    }

    /// Whether this decoder was made for `type` (``init(for:)``).
    package func isMade<T>(for type: T.Type) -> Bool { known.isMade(for: type) }

    /// `bytes` with `defaults` (stored value bytes by field name) added for the fields it lacks,
    /// and the table that names them; nil when it lacks none of them or does not read as a map.
    package static func fillingDefaults(_ defaults: [String: [UInt8]], in bytes: [UInt8], fields: FieldTable) -> ([UInt8], FieldTable)? {
        var table = fields
        let ids = defaults.keys.sorted().map { (id: table.assign($0), value: defaults[$0]!) }
        var added = false
        let filled = try? RecordCursor.rebuild(bytes) { entries, append in
            for entry in entries { append(entry.id, bytes[entry.value]) }
            for (id, value) in ids where !entries.contains(where: { $0.id == id }) {
                append(id, value[...])
                added = true
            }
        }
        guard let filled, added else { return nil }
        return (filled, table)
    }

    /// Decodes `type` from `bytes` as stored, without filling defaults (``decode(_:from:fields:entity:key:)``
    /// fills them).
    package func decodeOnce<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], fields: FieldTable, entity: String, key: String
    ) throws(StrataError) -> T {
        let conformance = known.of(T.self)
        if usesFieldCoding, let direct = conformance {
            return try decodeFields(direct, as: T.self, from: bytes, fields: fields, entity: entity, key: key)
        }
        let state = RecordDecodingState(bytes: bytes, fields: fields, entity: entity, key: key)
        do {
            let value = try T(from: state)
            try state.finishRecord()
            return value
        } catch let error as StrataError {
            throw error
        } catch let error as DecodingError {
            throw state.wrap(error)
        } catch {
            throw StrataError(
                .typeMismatch, "\(entity) \(key): \(T.self).init(from:) failed: \(error)",
                entity: entity, key: key, cause: error)
        }
    }
}

extension RecordDecoder {
    /// The ``FieldCodable`` path: the type reads its own fields.
    private func decodeFields<T>(
        _ direct: any FieldCodable.Type, as _: T.Type, from bytes: [UInt8], fields: FieldTable, entity: String, key: String
    ) throws(StrataError) -> T {
        var reader = try FieldReader(bytes: bytes, fields: fields, entity: entity, key: key)
        do {
            let value = try direct.decodeFields(as: T.self, from: &reader)
            try reader.finish()
            return value
        } catch let error as StrataError {
            throw error
        } catch let error as DecodingError {
            throw RecordDecodingState(bytes: bytes, fields: fields, entity: entity, key: key).wrap(error)
        } catch {
            throw StrataError(
                .typeMismatch, "\(entity) \(key): \(T.self).init(fields:) failed: \(error)",
                entity: entity, key: key, cause: error)
        }
    }
}

/// The one `Decoder` of a decoding run: it owns the bytes, the state of every container opened so far
/// and the path information for error messages, so containers are plain structs pointing into it.
final class RecordDecodingState: Decoder {
    /// Where a value sits in its parent, resolved to a name only when an error needs it.
    enum PathComponent {
        case none
        /// The value of entry number `n` (an index into `storage`) of an indexed keyed container.
        case entry(Int)
        /// Element `n` of an unkeyed container.
        case index(Int)
        /// The value of the map entry whose key item starts at byte `n` (keyed containers read in order).
        case key(Int)
    }

    /// An opened container: its place in the path and, for keyed ones, how far its entries have been read.
    /// Stored as `Frame.size` integers in `storage` (see the offsets below), so a whole decoding run
    /// needs at most one array allocation.
    ///
    /// A keyed container starts out reading its map in order, without an index: synthesized
    /// `init(from:)` asks for the keys in declaration order, which is the order they were written in,
    /// so each request is answered by the entry at the cursor and each value is read exactly once.
    /// The first request the cursor cannot answer (an omitted nil, a renamed or reordered field) indexes
    /// the whole map once, appending one entry of three integers per key: (field id, 0, value offset) at
    /// the top level, (key text start, key text end, value offset) in nested maps.
    struct Frame {
        var parent: Int
        var component: PathComponent
        var entriesBase = 0
        var count = 0
        /// The entry expected next: synthesized `init(from:)` asks for keys in declaration order.
        var cursor = 0
        var isTopLevel = false

        static let size = 12
        // Integer offsets within a frame.
        static let parent = 0, kind = 1, value = 2
        /// Where the index entries start, or -1 while the map is read in order without an index.
        static let entriesBase = 3
        static let count = 4, cursor = 5, isTopLevel = 6
        /// Offset of the first key, after the map head.
        static let mapStart = 7
        /// In-order reading: offset of the key of entry `cursor`, or -1 when the previous value's end
        /// is not known yet (it was handed to a nested container or `init(from:)`).
        static let nextKey = 8
        /// In-order reading: offset of the value of entry `cursor - 1`.
        static let lastValue = 9
        /// In-order reading of the record's map: bit `n` is set once field id `n` (< 64) was consumed.
        static let consumedIDs = 10
        /// In-order reading: how many times an absent key was confirmed absent by scanning ahead.
        static let scans = 11
    }

    @inline(__always)
    func frame(_ index: Int) -> Frame {
        Frame(
            parent: storage[index], component: component(ofFrame: index),
            entriesBase: storage[index + 3], count: storage[index + 4], cursor: storage[index + 5],
            isTopLevel: storage[index + 6] != 0)
    }

    @inline(__always)
    func component(ofFrame index: Int) -> PathComponent {
        let value = storage[index + Frame.value]
        switch storage[index + Frame.kind] {
        case 1: return .entry(value)
        case 2: return .index(value)
        case 3: return .key(value)
        default: return .none
        }
    }

    /// Appends a frame; returns its index. Keyed frames start in in-order mode (no index).
    @inline(__always)
    func appendFrame(parent: Int, component: PathComponent, count: Int, isTopLevel: Bool, mapStart: Int = 0) -> Int {
        let index = storage.count
        let (kind, value): (Int, Int)
        switch component {
        case .none: (kind, value) = (0, 0)
        case .entry(let entry): (kind, value) = (1, entry)
        case .index(let position): (kind, value) = (2, position)
        case .key(let offset): (kind, value) = (3, offset)
        }
        // Appended to a uniquely held local array: no uniqueness check per element.
        var storage = self.storage
        self.storage = []
        if storage.capacity - index < Frame.size { storage.reserveCapacity(max(64, 2 * storage.capacity)) }
        storage.append(parent)
        storage.append(kind)
        storage.append(value)
        storage.append(-1)
        storage.append(count)
        storage.append(0)
        storage.append(isTopLevel ? 1 : 0)
        storage.append(mapStart)
        storage.append(mapStart)
        storage.append(0)
        storage.append(0)
        storage.append(0)
        self.storage = storage
        return index
    }

    /// Frames and, once a keyed container needed one, its index entries. Frame and entry numbers are
    /// indices into this array.
    // Exclusivity: as in `RecordEncodingState`, every access to the mutable properties is a short one
    // made by this decoder's own code, never spanning a call to a type's `init(from:)`, so accesses
    // cannot overlap and the per-access runtime checks are switched off.
    @exclusivity(unchecked) var storage: [Int] = []
    let reader: CBORReader
    let fields: FieldTable
    let entity: String
    let recordKey: String

    /// The value the next `container`/`singleValueContainer` call applies to.
    @exclusivity(unchecked) var slotOffset = 0
    @exclusivity(unchecked) var slotParent = -1
    @exclusivity(unchecked) var slotComponent = PathComponent.none
    @exclusivity(unchecked) var depth = 0
    /// The frame of the record's own map, checked for trailing bytes when decoding ends; -1 until opened.
    @exclusivity(unchecked) var recordFrame = -1

    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path(parent: slotParent, component: slotComponent) }

    init(bytes: [UInt8], fields: FieldTable, entity: String, key: String) {
        reader = CBORReader(bytes: bytes)
        self.fields = fields
        self.entity = entity
        recordKey = key
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(keyedBy: type, at: slotOffset, parent: slotParent, component: slotComponent)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: slotOffset, parent: slotParent, component: slotComponent)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordSingleValueDecodingContainer(state: self, offset: slotOffset, parent: slotParent, component: slotComponent)
    }

    func unkeyedContainer(at offset: Int, parent: Int, component: PathComponent) throws -> any UnkeyedDecodingContainer {
        var position = offset
        do throws(CBORReadFailure) {
            let head = try reader.readHead(at: &position)
            guard head.major == .array else { throw CBORReadFailure.mismatch(offset: offset, expected: "") }
            let count = try reader.checkedLength(head, at: position, start: offset, perItem: 1)
            let frame = appendFrame(parent: parent, component: component, count: 0, isTopLevel: false)
            storage[frame + Frame.entriesBase] = 0
            return RecordUnkeyedDecodingContainer(state: self, frame: frame, offset: position, itemCount: count)
        } catch {
            throw failure(error, parent: parent, component: component, expected: "an unkeyed container (array)")
        }
    }
}

/// The decoder handed out by `superDecoder()`: it reads the value stored under the given key.
final class RecordSlotDecoder: Decoder {
    let state: RecordDecodingState
    let offset: Int
    let parent: Int
    let component: RecordDecodingState.PathComponent

    init(state: RecordDecodingState, offset: Int, parent: Int, component: RecordDecodingState.PathComponent) {
        self.state = state
        self.offset = offset
        self.parent = parent
        self.component = component
    }

    var codingPath: [any CodingKey] { state.path(parent: parent, component: component) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try state.keyedContainer(keyedBy: type, at: offset, parent: parent, component: component)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try state.unkeyedContainer(at: offset, parent: parent, component: component)
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordSingleValueDecodingContainer(state: state, offset: offset, parent: parent, component: component)
    }
}

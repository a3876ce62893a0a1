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
    package init() {}

    /// Decodes `type` from `bytes`; `key` is the record's primary key as text, used only in error messages.
    package func decode<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], fields: FieldTable, entity: String, key: String
    ) throws(StrataError) -> T {
        let state = RecordDecodingState(bytes: bytes, fields: fields, entity: entity, key: key)
        do {
            return try T(from: state)
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

/// The one `Decoder` of a decoding run: it owns the bytes, the index of every keyed container opened so
/// far and the path information for error messages, so containers are plain structs pointing into it.
final class RecordDecodingState: Decoder {
    /// Where a value sits in its parent, resolved to a name only when an error needs it.
    enum PathComponent {
        case none
        /// The value of entry number `n` (an index into `storage`) of a keyed container.
        case entry(Int)
        /// Element `n` of an unkeyed container.
        case index(Int)
    }

    /// An opened container: its place in the path and, for keyed ones, where its entries are.
    /// Stored as `Frame.size` integers in `storage`, followed by a keyed container's entries, so a whole
    /// decoding run needs one array allocation.
    struct Frame {
        var parent: Int
        var component: PathComponent
        var entriesBase = 0
        var count = 0
        /// The entry expected next: synthesized `init(from:)` asks for keys in declaration order.
        var cursor = 0
        var isTopLevel = false

        static let size = 7
    }

    @inline(__always)
    func frame(_ index: Int) -> Frame {
        let kind = storage[index + 1]
        let value = storage[index + 2]
        return Frame(
            parent: storage[index], component: kind == 1 ? .entry(value) : kind == 2 ? .index(value) : .none,
            entriesBase: storage[index + 3], count: storage[index + 4], cursor: storage[index + 5],
            isTopLevel: storage[index + 6] != 0)
    }

    /// Appends a frame whose entries, if any, will follow it; returns its index.
    @inline(__always)
    func appendFrame(parent: Int, component: PathComponent, count: Int, isTopLevel: Bool) -> Int {
        let index = storage.count
        let (kind, value): (Int, Int)
        switch component {
        case .none: (kind, value) = (0, 0)
        case .entry(let entry): (kind, value) = (1, entry)
        case .index(let position): (kind, value) = (2, position)
        }
        storage.append(parent)
        storage.append(kind)
        storage.append(value)
        storage.append(index + Frame.size)
        storage.append(count)
        storage.append(0)
        storage.append(isTopLevel ? 1 : 0)
        return index
    }

    /// Frames and keyed-container entries. An entry is three integers: (field id, 0, value offset) at the
    /// top level, (key text start, key text end, value offset) in nested maps. Frame and entry numbers
    /// are indices into this array.
    // Exclusivity: as in `RecordEncodingState`, every access to the mutable properties is a short one
    // made by this decoder's own code, never spanning a call to a type's `init(from:)`, so accesses
    // cannot overlap and the per-access runtime checks (16% of decoding time) are switched off.
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

    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path(parent: slotParent, component: slotComponent) }

    init(bytes: [UInt8], fields: FieldTable, entity: String, key: String) {
        reader = CBORReader(bytes: bytes)
        self.fields = fields
        self.entity = entity
        recordKey = key
        storage.reserveCapacity(64)
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

    /// Indexes the map at `offset` and returns a container over it.
    func keyedContainer<Key: CodingKey>(
        keyedBy _: Key.Type, at offset: Int, parent: Int, component: PathComponent
    ) throws -> KeyedDecodingContainer<Key> {
        let frame = try indexMap(at: offset, parent: parent, component: component)
        return KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(state: self, frame: frame))
    }

    /// Appends a frame for the map at `offset` followed by one entry per key; returns the frame.
    private func indexMap(at offset: Int, parent: Int, component: PathComponent) throws -> Int {
        let isTopLevel = parent == -1 && offset == 0
        let frame = storage.count
        // Work on a uniquely held local array so the appends below need no per-element uniqueness checks.
        var storage = self.storage
        self.storage = []
        do throws(CBORReadFailure) {
            var position = offset
            let head = try reader.readHead(at: &position)
            guard head.major == .map else { throw .mismatch(offset: offset, expected: "") }
            let count = try reader.checkedLength(head, at: position, start: offset, perItem: 2)
            let (kind, value): (Int, Int)
            switch component {
            case .none: (kind, value) = (0, 0)
            case .entry(let entry): (kind, value) = (1, entry)
            case .index(let index): (kind, value) = (2, index)
            }
            storage.reserveCapacity(frame + Frame.size + 3 * count)
            storage.append(parent)
            storage.append(kind)
            storage.append(value)
            storage.append(frame + Frame.size)
            storage.append(count)
            storage.append(0)
            storage.append(isTopLevel ? 1 : 0)
            for _ in 0..<count {
                let keyStart = position
                let keyHead = try reader.readHead(at: &position)
                if isTopLevel {
                    guard keyHead.major == .unsigned, keyHead.argument <= UInt64(Int.max) else {
                        throw .corrupt(offset: keyStart, reason: "record map key is not a field id")
                    }
                    storage.append(Int(keyHead.argument))
                    storage.append(0)
                } else {
                    guard keyHead.major == .text else { throw .corrupt(offset: keyStart, reason: "map key is not a text string") }
                    let length = try reader.checkedLength(keyHead, at: position, start: keyStart, perItem: 1)
                    storage.append(position)
                    storage.append(position + length)
                    position += length
                }
                storage.append(position)
                try reader.skipItemQuickly(at: &position)
            }
            if isTopLevel && position != reader.bytes.count {
                throw .corrupt(offset: position, reason: "\(reader.bytes.count - position) bytes follow the record")
            }
            self.storage = storage
        } catch {
            storage.removeSubrange(frame...)
            self.storage = storage
            throw failure(error, parent: parent, component: component, expected: isTopLevel ? "a record (map)" : "a keyed container (map)")
        }
        return frame
    }

    func unkeyedContainer(at offset: Int, parent: Int, component: PathComponent) throws -> any UnkeyedDecodingContainer {
        var position = offset
        do throws(CBORReadFailure) {
            let head = try reader.readHead(at: &position)
            guard head.major == .array else { throw CBORReadFailure.mismatch(offset: offset, expected: "") }
            let count = try reader.checkedLength(head, at: position, start: offset, perItem: 1)
            let frame = appendFrame(parent: parent, component: component, count: 0, isTopLevel: false)
            return RecordUnkeyedDecodingContainer(state: self, frame: frame, offset: position, itemCount: count)
        } catch {
            throw failure(error, parent: parent, component: component, expected: "an unkeyed container (array)")
        }
    }

    // MARK: Key lookup

    /// The entry (index into `entries`) holding `key` in keyed container `frame`, or nil.
    @inline(__always)
    func entry(for key: some CodingKey, frame index: Int, advance: Bool) -> Int? {
        let cursor = storage[index + 5]
        if cursor < storage[index + 4] {
            let entry = storage[index + 3] + 3 * cursor
            let name = key.stringValue
            let found: Bool
            if storage[index + 6] != 0 {
                let id = storage[entry]
                let names = fields.namesByID
                found = id < names.count ? names[id] == name : fields.name(for: id) == name
            } else {
                found = textEquals(storage[entry]..<storage[entry + 1], name)
            }
            if found {
                if advance { storage[index + 5] = cursor + 1 }
                return entry
            }
        }
        return search(for: key, frame: index, advance: advance)
    }

    private func search(for key: some CodingKey, frame index: Int, advance: Bool) -> Int? {
        let frame = frame(index)
        var wanted = -1
        if frame.isTopLevel {
            let name = key.stringValue
            let names = fields.namesByID
            // A short scan of the dense names beats hashing the name; ids beyond them need the table.
            var scanned = -1
            if names.count <= 64 {
                for id in 0..<names.count where names[id] == name {
                    scanned = id
                    break
                }
            }
            if scanned >= 0 {
                wanted = scanned
            } else if let id = fields.id(for: name) {
                wanted = id
            } else {
                return nil
            }
        }
        for position in 0..<frame.count {
            let entry = frame.entriesBase + 3 * position
            let found = frame.isTopLevel ? storage[entry] == wanted : textEquals(storage[entry]..<storage[entry + 1], key.stringValue)
            if found {
                if advance { storage[index + 5] = position + 1 }
                return entry
            }
        }
        return nil
    }

    private func textEquals(_ range: Range<Int>, _ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == range.count else { return false }
        var index = range.lowerBound
        for byte in utf8 {
            if reader.bytes[index] != byte { return false }
            index += 1
        }
        return true
    }

    /// The text of a nested map's key, or the field name of a record entry.
    func keyName(ofEntry entry: Int, topLevel: Bool) -> String {
        if topLevel { return fields.name(for: storage[entry]) ?? "#\(storage[entry])" }
        return String(decoding: reader.bytes[storage[entry]..<storage[entry + 1]], as: UTF8.self)
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

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
        /// The value of entry number `n` (an index into `entries`) of a keyed container.
        case entry(Int)
        /// Element `n` of an unkeyed container.
        case index(Int)
        /// A key that is not stored.
        case name(String)
    }

    /// An opened container: its place in the path and, for keyed ones, its slice of `entries`.
    struct Frame {
        var parent: Int
        var component: PathComponent
        var entriesBase = 0
        var count = 0
        /// The entry expected next: synthesized `init(from:)` asks for keys in declaration order.
        var cursor = 0
        var isTopLevel = false
    }

    /// Keyed-container entries, three integers each: (field id, 0, value offset) at the top level,
    /// (key text start, key text end, value offset) in nested maps.
    var entries: [Int] = []
    var frames: [Frame] = []
    let reader: CBORReader
    let fields: FieldTable
    let entity: String
    let recordKey: String

    /// The value the next `container`/`singleValueContainer` call applies to.
    var slotOffset = 0
    var slotParent = -1
    var slotComponent = PathComponent.none
    var depth = 0

    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path(parent: slotParent, component: slotComponent) }

    init(bytes: [UInt8], fields: FieldTable, entity: String, key: String) {
        reader = CBORReader(bytes: bytes)
        self.fields = fields
        self.entity = entity
        recordKey = key
        frames.reserveCapacity(4)
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
        let isTopLevel = parent == -1 && offset == 0
        var position = offset
        let head: CBORReader.Head
        let count: Int
        do throws(CBORReadFailure) {
            head = try reader.readHead(at: &position)
            guard head.major == .map else {
                throw CBORReadFailure.mismatch(offset: offset, expected: "")
            }
            count = try reader.checkedLength(head, at: position, start: offset, perItem: 2)
            let base = entries.count
            entries.reserveCapacity(base + 3 * count)
            for _ in 0..<count {
                let keyStart = position
                let keyHead = try reader.readHead(at: &position)
                if isTopLevel {
                    guard keyHead.major == .unsigned, keyHead.argument <= UInt64(Int.max) else {
                        throw CBORReadFailure.corrupt(offset: keyStart, reason: "record map key is not a field id")
                    }
                    entries.append(Int(keyHead.argument))
                    entries.append(0)
                } else {
                    guard keyHead.major == .text else {
                        throw CBORReadFailure.corrupt(offset: keyStart, reason: "map key is not a text string")
                    }
                    let length = try reader.checkedLength(keyHead, at: position, start: keyStart, perItem: 1)
                    entries.append(position)
                    entries.append(position + length)
                    position += length
                }
                entries.append(position)
                try reader.skipItem(at: &position)
            }
            if isTopLevel && position != reader.bytes.count {
                throw CBORReadFailure.corrupt(offset: position, reason: "\(reader.bytes.count - position) bytes follow the record")
            }
            frames.append(Frame(parent: parent, component: component, entriesBase: base, count: count, isTopLevel: isTopLevel))
        } catch {
            throw failure(error, parent: parent, component: component, expected: isTopLevel ? "a record (map)" : "a keyed container (map)")
        }
        return KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(state: self, frame: frames.count - 1))
    }

    func unkeyedContainer(at offset: Int, parent: Int, component: PathComponent) throws -> any UnkeyedDecodingContainer {
        var position = offset
        do throws(CBORReadFailure) {
            let head = try reader.readHead(at: &position)
            guard head.major == .array else { throw CBORReadFailure.mismatch(offset: offset, expected: "") }
            let count = try reader.checkedLength(head, at: position, start: offset, perItem: 1)
            frames.append(Frame(parent: parent, component: component))
            return RecordUnkeyedDecodingContainer(state: self, frame: frames.count - 1, offset: position, itemCount: count)
        } catch {
            throw failure(error, parent: parent, component: component, expected: "an unkeyed container (array)")
        }
    }

    // MARK: Key lookup

    /// The entry (index into `entries`) holding `key` in keyed container `frame`, or nil.
    @inline(__always)
    func entry(for key: some CodingKey, frame index: Int, advance: Bool) -> Int? {
        let frame = frames[index]
        if frame.cursor < frame.count {
            let entry = frame.entriesBase + 3 * frame.cursor
            if matches(entry, key, topLevel: frame.isTopLevel) {
                if advance { frames[index].cursor += 1 }
                return entry
            }
        }
        return search(for: key, frame: index, advance: advance)
    }

    private func search(for key: some CodingKey, frame index: Int, advance: Bool) -> Int? {
        let frame = frames[index]
        var wanted = -1
        if frame.isTopLevel {
            guard let id = fields.id(for: key.stringValue) else { return nil }
            wanted = id
        }
        for position in 0..<frame.count {
            let entry = frame.entriesBase + 3 * position
            let found = frame.isTopLevel ? entries[entry] == wanted : textEquals(entries[entry]..<entries[entry + 1], key.stringValue)
            if found {
                if advance { frames[index].cursor = position + 1 }
                return entry
            }
        }
        return nil
    }

    @inline(__always)
    private func matches(_ entry: Int, _ key: some CodingKey, topLevel: Bool) -> Bool {
        if topLevel { return fields.name(for: entries[entry]) == key.stringValue }
        return textEquals(entries[entry]..<entries[entry + 1], key.stringValue)
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
        if topLevel { return fields.name(for: entries[entry]) ?? "#\(entries[entry])" }
        return String(decoding: reader.bytes[entries[entry]..<entries[entry + 1]], as: UTF8.self)
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

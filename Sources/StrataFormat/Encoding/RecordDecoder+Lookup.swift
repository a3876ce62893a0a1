/// Keyed containers: opening a map, finding a key's value (in order, or through an index), and the
/// end-of-record check.
extension RecordDecodingState {
    /// Where a requested key's value is, and how to name it in an error.
    struct Found {
        let value: Int
        let component: PathComponent
        /// The cursor once this entry is consumed.
        let next: Int
        /// The field id of a record entry read in order, else -1.
        let id: Int
    }

    /// Checks the map head at `offset` and returns a container that reads it in order.
    func keyedContainer<Key: CodingKey>(
        keyedBy _: Key.Type, at offset: Int, parent: Int, component: PathComponent
    ) throws -> KeyedDecodingContainer<Key> {
        let isTopLevel = parent == -1 && offset == 0
        var position = offset
        let count: Int
        do throws(CBORReadFailure) {
            let head = try reader.readHead(at: &position)
            guard head.major == .map else { throw .mismatch(offset: offset, expected: "") }
            count = try reader.checkedLength(head, at: position, start: offset, perItem: 2)
        } catch {
            throw failure(error, parent: parent, component: component, expected: isTopLevel ? "a record (map)" : "a keyed container (map)")
        }
        let frame = appendFrame(parent: parent, component: component, count: count, isTopLevel: isTopLevel, mapStart: position)
        if isTopLevel && recordFrame < 0 { recordFrame = frame }
        return KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(state: self, frame: frame))
    }

    /// The value of `key` in keyed container `frame`, or nil when the map has no such key. Pass the
    /// result to `consume` once the key counts as read.
    @inline(__always)
    func find(_ key: some CodingKey, frame index: Int) throws(StrataError) -> Found? {
        let name = key.stringValue
        if storage[index + Frame.entriesBase] < 0 {
            if let found = try findInOrder(name, frame: index) { return found }
            if storage[index + Frame.isTopLevel] != 0, try isAbsent(name, frame: index) { return nil }
            try indexMap(frame: index)
        }
        return search(name, frame: index)
    }

    /// Moves the cursor of keyed container `frame` past the entry `found`, whose value ends at `end`
    /// (-1 when not known: the value went to a nested container, which the next request skips over).
    @inline(__always)
    func consume(_ frame: Int, _ found: Found, end: Int) {
        storage[frame + Frame.cursor] = found.next
        guard case .key = found.component else { return }
        storage[frame + Frame.nextKey] = end
        if end < 0 { storage[frame + Frame.lastValue] = found.value }
        if found.id >= 0 && found.id < 64 { storage[frame + Frame.consumedIDs] |= 1 << found.id }
    }

    /// The entry at the cursor if its key is `name`.
    @inline(__always)
    private func findInOrder(_ name: String, frame index: Int) throws(StrataError) -> Found? {
        let cursor = storage[index + Frame.cursor]
        guard cursor < storage[index + Frame.count] else { return nil }
        var keyOffset = storage[index + Frame.nextKey]
        do throws(CBORReadFailure) {
            if keyOffset < 0 {
                keyOffset = storage[index + Frame.lastValue]
                try reader.skipItemQuickly(at: &keyOffset)
                storage[index + Frame.nextKey] = keyOffset
            }
            var position = keyOffset
            let head = try reader.readHead(at: &position)
            let matches: Bool
            var id = -1
            if storage[index + Frame.isTopLevel] != 0 {
                guard head.major == .unsigned, head.argument <= UInt64(Int.max) else {
                    throw .corrupt(offset: keyOffset, reason: "record map key is not a field id")
                }
                id = Int(head.argument)
                matches = id < fields.namesByID.count ? fields.namesByID[id] == name : fields.name(for: id) == name
            } else {
                guard head.major == .text else { throw .corrupt(offset: keyOffset, reason: "map key is not a text string") }
                let length = try reader.checkedLength(head, at: position, start: keyOffset, perItem: 1)
                matches = textEquals(position..<(position + length), name)
                position += length
            }
            guard matches else { return nil }
            return Found(value: position, component: .key(keyOffset), next: cursor + 1, id: id)
        } catch {
            throw mapFailure(error, frame: index)
        }
    }

    /// Whether field `name` is certainly not in the record's map `frame` (read in order), found by
    /// scanning the entries after the cursor: the usual case is a nil optional that was not written.
    /// The entries before the cursor are those already consumed, remembered by id. False when unsure.
    private func isAbsent(_ name: String, frame index: Int) throws(StrataError) -> Bool {
        var wanted = -1
        for id in 0..<min(fields.namesByID.count, 64) where CBOR.sameName(fields.namesByID[id], name) {
            wanted = id
            break
        }
        if wanted < 0 {
            if fields.namesByID.count <= 64 && fields.id(for: name) == nil { return true }
            return false
        }
        guard storage[index + Frame.consumedIDs] & (1 << wanted) == 0, storage[index + Frame.scans] < 4 else { return false }
        storage[index + Frame.scans] += 1
        do throws(CBORReadFailure) {
            var rest = try recordCursor(frame: index)
            return try rest.find(id: wanted, in: reader) == nil
        } catch {
            throw mapFailure(error, frame: index)
        }
    }

    /// The record's map `frame` (read in order) as a cursor at its next entry.
    private func recordCursor(frame index: Int) throws(CBORReadFailure) -> RecordCursor {
        var position = storage[index + Frame.nextKey]
        if position < 0 {
            position = storage[index + Frame.lastValue]
            try reader.skipItemQuickly(at: &position)
            storage[index + Frame.nextKey] = position
        }
        return RecordCursor(resumingAt: position, entry: storage[index + Frame.cursor], of: storage[index + Frame.count],
                            entriesStart: storage[index + Frame.mapStart])
    }

    private func mapFailure(_ error: CBORReadFailure, frame index: Int) -> StrataError {
        failure(error, parent: storage[index + Frame.parent], component: component(ofFrame: index),
                expected: storage[index + Frame.isTopLevel] != 0 ? "a record (map)" : "a keyed container (map)")
    }

    /// Appends one index entry per key of keyed container `frame` and switches it to indexed lookups.
    /// The record's own map must end exactly where the bytes do.
    func indexMap(frame index: Int) throws(StrataError) {
        let isTopLevel = storage[index + Frame.isTopLevel] != 0
        let count = storage[index + Frame.count]
        let base = storage.count
        // Work on a uniquely held local array so the appends below need no per-element uniqueness checks.
        var storage = self.storage
        self.storage = []
        do throws(CBORReadFailure) {
            var position = storage[index + Frame.mapStart]
            storage.reserveCapacity(base + 3 * count)
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
            storage[index + Frame.entriesBase] = base
            storage[index + Frame.nextKey] = 0
            self.storage = storage
        } catch {
            storage.removeSubrange(base...)
            self.storage = storage
            throw mapFailure(error, frame: index)
        }
    }

    /// Checks the rest of the record's map, which the type did not read, and that no bytes follow it.
    func finishRecord() throws(StrataError) {
        let index = recordFrame
        guard index >= 0, storage[index + Frame.entriesBase] < 0 else { return }
        do throws(CBORReadFailure) {
            var rest = try recordCursor(frame: index)
            try rest.finish(in: reader)
        } catch {
            throw mapFailure(error, frame: index)
        }
    }

    /// Index lookup: the entry at the cursor first, then every entry.
    private func search(_ name: String, frame index: Int) -> Found? {
        let base = storage[index + Frame.entriesBase]
        let count = storage[index + Frame.count]
        let isTopLevel = storage[index + Frame.isTopLevel] != 0
        let cursor = storage[index + Frame.cursor]
        if cursor < count, entryMatches(base + 3 * cursor, name, isTopLevel: isTopLevel) {
            return Found(value: storage[base + 3 * cursor + 2], component: .entry(base + 3 * cursor), next: cursor + 1, id: -1)
        }
        var wanted = -1
        if isTopLevel {
            // A short scan of the dense names beats hashing the name; ids beyond them need the table.
            if fields.namesByID.count <= 64 {
                for id in 0..<fields.namesByID.count where CBOR.sameName(fields.namesByID[id], name) {
                    wanted = id
                    break
                }
            }
            if wanted < 0 {
                guard let id = fields.id(for: name) else { return nil }
                wanted = id
            }
        }
        for position in 0..<count {
            let entry = base + 3 * position
            let found = isTopLevel ? storage[entry] == wanted : textEquals(storage[entry]..<storage[entry + 1], name)
            if found { return Found(value: storage[entry + 2], component: .entry(entry), next: position + 1, id: -1) }
        }
        return nil
    }

    @inline(__always)
    private func entryMatches(_ entry: Int, _ name: String, isTopLevel: Bool) -> Bool {
        if isTopLevel {
            let id = storage[entry]
            return id < fields.namesByID.count ? fields.namesByID[id] == name : fields.name(for: id) == name
        }
        return textEquals(storage[entry]..<storage[entry + 1], name)
    }

    func textEquals(_ range: Range<Int>, _ text: String) -> Bool {
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

    /// The name of the key item at `offset`: a record's field id or a nested map's text.
    func keyName(at offset: Int) -> String {
        var position = offset
        guard let head = try? reader.readHead(at: &position) else { return "?" }
        if head.major == .unsigned { return fields.name(for: Int(clamping: head.argument)) ?? "#\(head.argument)" }
        let end = min(reader.bytes.count, position + Int(clamping: head.argument))
        return String(decoding: reader.bytes[position..<end], as: UTF8.self)
    }
}

import Foundation

extension RecordEncodingState {
    /// Encodes one nested value: directly for the types CBOR has its own form for, else through its
    /// `encode(to:)` in a new slot.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if T.self == String.self { writer.writeText(value as! String); return }
        if T.self == Int.self { writer.writeInteger(value as! Int); return }
        if T.self == Double.self { writer.writeDouble(value as! Double); return }
        if T.self == Date.self { writeDate(value as! Date); return }
        if T.self == UUID.self { writeUUID(value as! UUID); return }
        if T.self == Data.self { writer.writeByteString(value as! Data); return }
        if T.self == URL.self { writer.writeTag(CBOR.uriTag); writer.writeText((value as! URL).absoluteString); return }
        if T.self == Decimal.self { writer.writeText((value as! Decimal).description); return }
        if ObjectIdentifier(T.self) == CBOR.stringArrayType {
            let strings = value as! [String]
            writer.writeHead(.array, UInt64(strings.count))
            for string in strings { writer.writeText(string) }
            return
        }
        if T.self == Bool.self { writer.writeBool(value as! Bool); return }
        if T.self == Int64.self { writer.writeInteger(value as! Int64); return }
        if T.self == Float.self { writer.writeFloat(value as! Float); return }
        let slot = frames.count
        pushFrame(kind: .pending, isSlot: true)
        if let unordered = T.self as? any UnorderedEncodableCollection.Type {
            frames[slot].itemsPerSortedEntry = unordered.itemsPerEntry
            frames[slot].entriesBase = entryStarts.count
        }
        let savedSlot = currentSlot
        currentSlot = slot
        try value.encode(to: self)
        try closeFrames(downTo: slot)
        currentSlot = savedSlot
    }

    func writeDate(_ date: Date) {
        writer.writeTag(CBOR.epochDateTag)
        let seconds = date.timeIntervalSince1970
        if seconds.rounded(.towardZero) == seconds, abs(seconds) < 0x1p53 {
            writer.writeInteger(Int64(seconds))
        } else {
            writer.writeDouble(seconds)
        }
    }

    func writeUUID(_ uuid: UUID) {
        let u = uuid.uuid
        writer.writeTag(CBOR.uuidTag)
        writer.writeByteString([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
    }
}

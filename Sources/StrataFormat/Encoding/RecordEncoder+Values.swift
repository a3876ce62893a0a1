extension RecordEncodingState {
    /// Encodes one nested value: directly for the types CBOR has its own form for, else through its
    /// `encode(to:)` in a new slot.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if writer.writePrimitive(value) { return }
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
}

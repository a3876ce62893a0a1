extension CBORReader {
    /// Walks the top-level map of a stored record: calls `body` with each entry's field id and the
    /// byte range of its value, in stored order. Throws when the bytes are not such a map; a count
    /// larger than the bytes can hold is cut, never trusted.
    func forEachTopLevelField(_ body: (_ id: Int, _ value: Range<Int>) throws -> Void) throws {
        var offset = 0
        let head = try readHead(at: &offset)
        guard head.major == .map else { throw CBORReadFailure.mismatch(offset: 0, expected: "a map") }
        for _ in 0..<min(head.argument, UInt64(bytes.count)) {
            let keyHead = try readHead(at: &offset)
            guard keyHead.major == .unsigned else { throw CBORReadFailure.mismatch(offset: offset, expected: "a field id") }
            let start = offset
            try skipItem(at: &offset)
            try body(Int(clamping: keyHead.argument), start..<offset)
        }
    }
}

import Testing
@testable import LMDB

/// `Span.replaceBytes(of:)`, the copy of an entry into a reader's reused buffer: the buffer holds
/// exactly the new bytes whatever it held, and a copy of the buffer kept by a caller keeps its
/// own bytes (the index walk hands its buffers to the executor, which may keep them).
@Suite struct ReplaceBytesTests {
    @Test func theBufferHoldsExactlyTheNewBytes() {
        var buffer: [UInt8] = []
        for bytes: [UInt8] in [[1, 2, 3], [4, 5, 6], [7], [], [8, 9, 10, 11], [12, 13, 14, 15], []] {
            bytes.span.replaceBytes(of: &buffer)
            #expect(buffer == bytes)
        }
    }

    @Test func aKeptCopyIsNotOverwritten() {
        // Entries of one width (overwritten in place) and of another (replaced).
        func entry(_ index: Int) -> [UInt8] {
            var bytes: [UInt8] = [UInt8(index), UInt8(index + 1)]
            if index % 5 == 4 { bytes.append(0xFF) }
            return bytes
        }
        var buffer: [UInt8] = []
        var kept: [[UInt8]] = []
        for index in 0..<20 {
            entry(index).span.replaceBytes(of: &buffer)
            if index % 3 == 0 { kept.append(buffer) }
        }
        let expected: [[UInt8]] = stride(from: 0, to: 20, by: 3).map(entry)
        #expect(kept == expected)
    }
}

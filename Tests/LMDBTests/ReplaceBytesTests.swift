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
        var buffer: [UInt8] = []
        var kept: [[UInt8]] = []
        for entry in 0..<20 {
            // Entries of one width (overwritten in place) and of another (replaced).
            let bytes = [UInt8(entry), UInt8(entry + 1)] + (entry % 5 == 4 ? [0xFF] : [])
            bytes.span.replaceBytes(of: &buffer)
            if entry % 3 == 0 { kept.append(buffer) }
        }
        #expect(kept == stride(from: 0, to: 20, by: 3).map { [UInt8($0), UInt8($0 + 1)] + ($0 % 5 == 4 ? [0xFF] : []) })
    }
}

@_spi(Format) import StrataFormat
import Foundation
import Testing
@testable import StrataFormat

/// The fast integer reads load 2-, 4- and 8-byte arguments at once, and read integers as Doubles
/// without `Double(exactly:)` up to 2^53: both must agree with the byte-by-byte definition.
struct FieldFastNumberTests {
    static let integers: [Int64] = [0, 1, 23, 24, 255, 256, 65_535, 65_536, 1 << 31, (1 << 32) - 1, 1 << 32,
                                    (1 << 53) - 1, 1 << 53, (1 << 53) + 1, (1 << 62) + 1, .max]
    static var signed: [Int64] { integers + integers.map { -1 - $0 } }

    @Test func everyArgumentWidthReadsBack() {
        for value in Self.signed {
            var writer = CBORWriter(capacity: 16)
            writer.writeInteger(value)
            let reader = CBORReader(bytes: writer.bytes)
            let read = reader.fastInt64(at: 0)
            #expect(read?.value == value)
            #expect(read?.end == writer.bytes.count)
            // The same bytes cut short are declined, never read past the end.
            for length in 0..<writer.bytes.count {
                #expect(CBORReader(bytes: Array(writer.bytes.prefix(length))).fastInt64(at: 0) == nil)
            }
        }
    }

    @Test func integersReadAsDoublesExactlyOrNotAtAll() {
        for value in Self.signed {
            var writer = CBORWriter(capacity: 16)
            writer.writeInteger(value)
            let read = CBORReader(bytes: writer.bytes).fastDouble(at: 0)
            #expect(read?.value == Double(exactly: value))
            if let double = read?.value { #expect(Int64(exactly: double) == value) }
        }
    }
}

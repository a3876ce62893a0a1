import Foundation
@testable import Strata
@_spi(Format) @testable import StrataFormat

/// Arbitrary bytes as an order-preserving key: every reader either returns a value within the
/// bytes or throws; none may trap, read out of bounds or loop.
func fuzzOrderedKey(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let key = Array(UnsafeRawBufferPointer(start: start, count: count))
    // A sequence of values of any type, as compound index keys hold them.
    var position = 0
    while position < key.count {
        let before = position
        guard (try? OrderedKey.queryValue(from: key, at: &position)) != nil else { break }
        precondition(position > before && position <= key.count, "queryValue moved from \(before) to \(position) of \(key.count)")
    }
    _ = OrderedKey.kind(of: key)
    // Each type's own reader from the start.
    read(Int64.self, key); read(Int.self, key); read(Int8.self, key); read(Int32.self, key)
    read(UInt64.self, key); read(UInt16.self, key); read(UInt.self, key)
    read(Double.self, key); read(Float.self, key); read(Bool.self, key)
    read(Date.self, key); read(String.self, key); read(UUID.self, key)
    read(String?.self, key); read(Int64?.self, key)
    return 0
}

private func read<T: IndexableValue>(_ type: T.Type, _ key: [UInt8]) {
    var position = 0
    if let value = try? T.readOrderedKey(from: key, at: &position) {
        precondition(position > 0 && position <= key.count, "\(T.self) read to \(position) of \(key.count)")
        _ = value.orderedKey
    }
}

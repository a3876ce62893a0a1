/// Where keys fall between an index's first and last keys, as fractions of that span, to
/// estimate how many entries a stretch of keys holds without walking it (as if the keys were
/// spread evenly, which order-preserving encodings of dates, numbers and names roughly are).
///
/// Keys are read as numbers from their first bytes after the prefix the first and last keys
/// share, so the estimate costs two cursor moves whatever the size of the stretch.
package struct KeySpace {
    private let first: [UInt8]
    /// Bytes the first and last keys share; every key between them shares them too.
    private let shared: Int
    private let low: Double
    private let high: Double

    /// Bytes read as a number after the shared prefix (exact in a Double's 53 bits).
    private static let width = 6

    package init(first: [UInt8], last: [UInt8]) {
        var shared = 0
        while shared < min(first.count, last.count), first[shared] == last[shared] { shared += 1 }
        self.first = first
        self.shared = shared
        low = Self.number(first, from: shared)
        high = Self.number(last, from: shared)
    }

    /// The fraction of the span from the first key to `key`, clamped to 0…1.
    package func position(_ key: [UInt8]) -> Double {
        let head = key.prefix(shared), common = first.prefix(shared)
        if head != common { return head.lexicographicallyPrecedes(common) ? 0 : 1 }
        guard high > low else { return key.lexicographicallyPrecedes(first) ? 0 : 1 }
        return min(1, max(0, (Self.number(key, from: shared) - low) / (high - low)))
    }

    /// The estimated fraction of all entries inside `bounds`.
    package func fraction(of bounds: KeyBounds) -> Double {
        let lower = bounds.start.map(position) ?? 0
        let upper: Double
        switch bounds.end {
        case .none: upper = 1
        case .prefix(let prefix): upper = KeyBounds.successor(prefix).map(position) ?? 1
        case .upper(let bound, let inclusive): upper = inclusive ? KeyBounds.successor(bound).map(position) ?? 1 : position(bound)
        }
        return max(0, upper - lower)
    }

    private static func number(_ key: [UInt8], from start: Int) -> Double {
        var value: UInt64 = 0
        for index in start..<(start + width) {
            value = value << 8 | UInt64(index < key.count ? key[index] : 0)
        }
        return Double(value)
    }
}

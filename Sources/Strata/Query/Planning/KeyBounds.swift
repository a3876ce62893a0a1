#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One contiguous stretch of index keys, as a forward walk sees it: where to start, which keys to
/// pass over, and where to stop. Every forward walk and count of an ``IndexProbe`` goes through
/// it, so the rules for exclusive and cut bounds live in one place.
///
/// Bounds are byte prefixes cut to `IndexKey.maxLength`, so keys that were cut when stored are
/// always inside (the executor rechecks every candidate). A bound that was itself cut is treated
/// as inclusive: the values it stands for may lie on either side of it.
struct KeyBounds {
    /// The first key to seek (nil: the first key of the database).
    let start: [UInt8]?
    /// Keys starting with these bytes (an exclusive lower bound) are passed over.
    let skipped: [UInt8]?
    let end: End

    enum End {
        /// Walk to the last key.
        case none
        /// Stop at the first key that does not start with these bytes.
        case prefix([UInt8])
        /// Stop at the first key past `upper`: at `upper` itself when exclusive; past every key
        /// `upper` prefixes when inclusive.
        case upper([UInt8], inclusive: Bool)
    }

    /// What a walk does with one key.
    enum Verdict { case take, skip, stop }

    /// Every key.
    static var all: KeyBounds { KeyBounds(start: nil, skipped: nil, end: .none) }

    /// Keys starting with `prefix` (a point's whole key, or a string prefix).
    static func prefix(_ prefix: [UInt8]) -> KeyBounds {
        KeyBounds(start: prefix, skipped: nil, end: .prefix(prefix))
    }

    /// Keys between two encoded bounds (nil: open); a range never starts at the nil key (tag 0x00),
    /// because comparisons with nil are false.
    static func range(lower: [UInt8]?, lowerInclusive: Bool, upper: [UInt8]?, upperInclusive: Bool) -> KeyBounds {
        let skipped = lower.flatMap { !lowerInclusive && $0.count < IndexKey.maxLength ? $0 : nil }
        let end: End = upper.map { .upper($0, inclusive: upperInclusive || $0.count >= IndexKey.maxLength) } ?? .none
        return KeyBounds(start: lower ?? [0x01], skipped: skipped, end: end)
    }

    /// Whether a walk takes, passes over or stops at `key`.
    func verdict(_ key: Span<UInt8>) -> Verdict {
        switch end {
        case .none: break
        case .prefix(let prefix):
            guard Self.starts(key, with: prefix) else { return .stop }
        case .upper(let upper, let inclusive):
            // One comparison of the common length tells both whether `upper` prefixes the key and
            // whether the key sorts after it.
            let common = Self.compareCommon(key, upper)
            if common > 0 { return .stop }
            if common == 0 && key.count >= upper.count && !inclusive { return .stop }
        }
        if let skipped, Self.starts(key, with: skipped) { return .skip }
        return .take
    }

    static func starts(_ key: Span<UInt8>, with prefix: [UInt8]) -> Bool {
        key.count >= prefix.count && compareCommon(key, prefix) == 0
    }

    /// -1, 0 or 1 as the first `min(key.count, other.count)` bytes of `key` sort before, equal to or
    /// after those of `other` (one `memcmp`: index walks compare every key they pass).
    @inline(__always)
    static func compareCommon(_ key: Span<UInt8>, _ other: [UInt8]) -> Int {
        let length = min(key.count, other.count)
        guard length > 0 else { return 0 }
        // SAFETY: both buffers hold at least `length` bytes and outlive the call.
        let result = key.withUnsafeBytes { keyBytes in
            other.withUnsafeBytes { otherBytes in memcmp(keyBytes.baseAddress!, otherBytes.baseAddress!, length) }
        }
        return result < 0 ? -1 : (result > 0 ? 1 : 0)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// LMDB's default key order (bytewise, a key before every longer key it prefixes), for walks that
/// stop at a bound: the cursor's counting loop and the callers' own walks decide the same way.
package enum KeyOrder {
    /// -1, 0 or 1 as the first `min(key.count, other.count)` bytes of `key` sort before, equal to
    /// or after those of `other` (one `memcmp`).
    @inlinable
    package static func compareCommon(_ key: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Int {
        let length = min(key.count, other.count)
        guard length > 0, let keyBase = key.baseAddress, let otherBase = other.baseAddress else { return 0 }
        let result = memcmp(keyBase, otherBase, length)
        return result < 0 ? -1 : (result > 0 ? 1 : 0)
    }

    /// -1, 0 or 1 as `key` sorts before, equals or sorts after `other` in LMDB's default order
    /// (also that of sorted duplicates).
    @inlinable
    package static func compare(_ key: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Int {
        let common = compareCommon(key, other)
        if common != 0 { return common }
        return key.count < other.count ? -1 : (key.count > other.count ? 1 : 0)
    }

    /// Whether a walk upwards has not yet passed `upper` at `key`: `key` sorts before `upper`, or,
    /// with `throughPrefix`, starts with it (so an inclusive bound that was cut short, or a prefix,
    /// takes every key it prefixes).
    @inlinable
    package static func isKey(_ key: UnsafeRawBufferPointer, within upper: UnsafeRawBufferPointer, throughPrefix: Bool) -> Bool {
        let common = compareCommon(key, upper)
        if common != 0 { return common < 0 }
        return key.count < upper.count || throughPrefix
    }
}

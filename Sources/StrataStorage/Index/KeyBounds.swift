import LMDB

/// One contiguous stretch of index keys, as a forward walk sees it: where to start, which keys to
/// pass over, and where to stop. Every forward walk and count of an ``IndexProbe`` goes through
/// it, so the rules for exclusive and cut bounds live in one place.
///
/// Bounds are byte prefixes cut to `IndexKey.maxLength`, so keys that were cut when stored are
/// always inside (the executor rechecks every candidate). A bound that was itself cut is treated
/// as inclusive: the values it stands for may lie on either side of it.
package struct KeyBounds {
    /// The first key to seek (nil: the first key of the database).
    package let start: [UInt8]?
    /// Keys starting with these bytes (an exclusive lower bound) are passed over.
    package let skipped: [UInt8]?
    package let end: End
    /// Bounds on the values under each key (an index's primary keys, sorted duplicates), when the
    /// walk narrows them; nil: every value. A walk or count of an ``IndexProbe`` honours them;
    /// a read of keys alone (distinct keys, counts per key, merges) does not, so an access path
    /// that sets them has its candidates checked against the whole predicate.
    package var values: ValueBounds?

    /// Encoded bounds on the values under one key, compared bytewise as LMDB orders sorted
    /// duplicates. A bound cut to ``IndexKey/maxLength`` is dropped (its values may lie on either
    /// side of it).
    package struct ValueBounds: Equatable {
        /// The least value (nil: from the first).
        package let lower: [UInt8]?
        package let lowerInclusive: Bool
        /// The greatest value (nil: to the last).
        package let upper: [UInt8]?
        package let upperInclusive: Bool

        package init(lower: [UInt8]?, lowerInclusive: Bool, upper: [UInt8]?, upperInclusive: Bool) {
            self.lower = lower.flatMap { $0.count < IndexKey.maxLength ? $0 : nil }
            self.lowerInclusive = lowerInclusive
            self.upper = upper.flatMap { $0.count < IndexKey.maxLength ? $0 : nil }
            self.upperInclusive = upperInclusive
        }

        /// Whether a walk of one key's values, ascending, takes `value`, passes over it (below the
        /// lower bound) or stops at it (past the upper bound).
        @inlinable
        package func verdict(_ value: Span<UInt8>) -> Verdict {
            value.withUnsafeBytes { value in
                if let upper {
                    let order = upper.withUnsafeBytes { KeyOrder.compare(value, $0) }
                    if order > 0 || order == 0 && !upperInclusive { return .stop }
                }
                if let lower {
                    let order = lower.withUnsafeBytes { KeyOrder.compare(value, $0) }
                    if order < 0 || order == 0 && !lowerInclusive { return .skip }
                }
                return .take
            }
        }
    }

    package enum End {
        /// Walk to the last key.
        case none
        /// Stop at the first key that does not start with these bytes.
        case prefix([UInt8])
        /// Stop at the first key past `upper`: at `upper` itself when exclusive; past every key
        /// `upper` prefixes when inclusive.
        case upper([UInt8], inclusive: Bool)
    }

    /// What a walk does with one key.
    package enum Verdict { case take, skip, stop }

    /// Every key.
    package static var all: KeyBounds { KeyBounds(start: nil, skipped: nil, end: .none, values: nil) }

    /// Keys starting with `prefix` (a point's whole key, or a string prefix).
    package static func prefix(_ prefix: [UInt8]) -> KeyBounds {
        KeyBounds(start: prefix, skipped: nil, end: .prefix(prefix), values: nil)
    }

    /// Keys between two encoded bounds (nil: open) of the field after `prefix` (the encoded
    /// values of a compound index's first fields; empty for the leading field), all starting with
    /// `prefix`; a range never starts at the nil key (tag 0x00), because comparisons with nil are
    /// false. Bounds are cut to ``IndexKey/maxLength`` as stored keys are.
    package static func range(under prefix: [UInt8] = [], lower: [UInt8]?, lowerInclusive: Bool, upper: [UInt8]?, upperInclusive: Bool) -> KeyBounds {
        let cut = { (bytes: [UInt8]) in bytes.count > IndexKey.maxLength ? Array(bytes.prefix(IndexKey.maxLength)) : bytes }
        let lowerKey = lower.map { cut(prefix + $0) }, upperKey = upper.map { cut(prefix + $0) }
        let skipped = lowerKey.flatMap { !lowerInclusive && $0.count < IndexKey.maxLength ? $0 : nil }
        let end: End = upperKey.map { .upper($0, inclusive: upperInclusive || $0.count >= IndexKey.maxLength) }
            ?? (prefix.isEmpty ? .none : .prefix(cut(prefix)))
        return KeyBounds(start: lowerKey ?? cut(prefix + [0x01]), skipped: skipped, end: end, values: nil)
    }

    /// Whether a backward walk takes, passes over or stops at `key` (keys at or past the end are
    /// never met: the walk starts below ``backwardStart``).
    package func backwardVerdict(_ key: [UInt8]) -> Verdict {
        if let start, key.lexicographicallyPrecedes(start) { return .stop }
        if case .prefix(let prefix) = end, !key.starts(with: prefix) { return .stop }
        if let skipped, key.starts(with: skipped) { return .skip }
        return .take
    }

    /// Where a backward walk starts: below the first key past the end (nil: at the last key).
    package var backwardStart: [UInt8]? {
        switch end {
        case .none: nil
        case .prefix(let prefix): KeyBounds.successor(prefix)
        case .upper(let upper, let inclusive): inclusive ? KeyBounds.successor(upper) : upper
        }
    }

    /// Whether a walk takes, passes over or stops at `key`. Inlinable: index walks in the
    /// query layer call it once per entry.
    @inlinable
    package func verdict(_ key: Span<UInt8>) -> Verdict {
        switch end {
        case .none: break
        case .prefix(let prefix):
            guard Self.starts(key, with: prefix) else { return .stop }
        case .upper(let upper, let inclusive):
            let within = key.withUnsafeBytes { key in
                upper.withUnsafeBytes { upper in KeyOrder.isKey(key, within: upper, throughPrefix: inclusive) }
            }
            guard within else { return .stop }
        }
        if let skipped, Self.starts(key, with: skipped) { return .skip }
        return .take
    }

    @inlinable
    package static func starts(_ key: Span<UInt8>, with prefix: [UInt8]) -> Bool {
        key.count >= prefix.count && key.withUnsafeBytes { key in
            prefix.withUnsafeBytes { prefix in KeyOrder.compareCommon(key, prefix) == 0 }
        }
    }

    /// Where a key-by-key count from ``start`` stops (``Cursor/countEntries(upTo:throughPrefix:limit:)``):
    /// at the key ``verdict(_:)`` stops at. (A prefix's keys follow it, so every key within
    /// `prefix`, taking those it prefixes, is one of them.)
    package var countEnd: (upper: [UInt8]?, throughPrefix: Bool) {
        switch end {
        case .none: (nil, false)
        case .prefix(let prefix): (prefix, true)
        case .upper(let upper, let inclusive): (upper, inclusive)
        }
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or nil when
    /// there is none (all 0xFF).
    package static func successor(_ prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}

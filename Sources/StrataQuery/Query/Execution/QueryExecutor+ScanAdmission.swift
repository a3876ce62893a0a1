import Foundation

extension QueryExecutor {
    /// What a scan filtered by `field == text` alone (no string options, no quantifier: byte
    /// equality, ``PreparedPredicate/textEquality(slot:utf8:comparison:)``) asks of a record's
    /// bytes, lent by the transaction, before it copies and parses them: that they hold `utf8`
    /// somewhere (``bytes(_:contain:)``). A matching record does: its field's text is stored as
    /// written, a text item's payload (or an array element's, which an implicit `ANY` compares).
    /// A refused record counts as a candidate read, and ticks the query's budget, as one checked
    /// in full would.
    ///
    /// Nil, so that every record is checked in full, for an empty text (every record holds it) and
    /// for one with U+FFFD, which a stored text of invalid UTF-8 decodes to without holding its bytes.
    func scanAdmission(_ utf8: [UInt8]) -> ((Span<UInt8>) throws -> Bool)? {
        guard !utf8.isEmpty, !String(decoding: utf8, as: UTF8.self).unicodeScalars.contains("\u{FFFD}") else { return nil }
        let budget = self.budget
        // `self` held strongly (an unowned reference costs a check at each use): the closure lives
        // only for the scan.
        return { value in
            if Self.bytes(value, contain: utf8) { return true }
            try budget?.tick()
            self.candidatesRead += 1
            return false
        }
    }

    /// True when `needle` (not empty) occurs in `bytes`: `memchr` finds each place where its
    /// first byte is, `memcmp` compares the rest there.
    package static func bytes(_ bytes: Span<UInt8>, contain needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        // SAFETY: both buffers live for the call; every pointer stays within `haystack`, and a
        // comparison starts no later than `needle.count` bytes before its end.
        return bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                guard let base = haystack.baseAddress, let pattern = needle.baseAddress else { return false }
                let lastStart = base + (haystack.count - needle.count)
                var start = base
                while start <= lastStart {
                    guard let found = memchr(start, Int32(first), lastStart - start + 1) else { return false }
                    let at = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(at, pattern, needle.count) == 0 { return true }
                    start = at + 1
                }
                return false
            }
        }
    }
}

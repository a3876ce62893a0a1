import CLMDB

/// Scoped access to bytes as an `MDB_val`.
///
/// SAFETY: the `MDB_val` points into `bytes`' storage and is valid only inside `body`; LMDB copies
/// keys and values on `mdb_put` and only reads them on lookups, so nothing retains the pointer.
@inline(__always)
func withMDBVal<R, E: Error>(_ bytes: [UInt8], _ body: (inout MDB_val) throws(E) -> R) throws(E) -> R {
    let result: Result<R, E> = bytes.withUnsafeBytes { raw in
        var value = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
        do throws(E) { return .success(try body(&value)) } catch { return .failure(error) }
    }
    return try result.get()
}

extension MDB_val {
    /// A copy of the bytes this value points to.
    ///
    /// SAFETY: only called while the transaction that produced the value is open.
    @inline(__always)
    var bytes: [UInt8] {
        guard mv_size > 0, let base = mv_data else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: mv_size))
    }

    /// The bytes as a typed buffer (which `Array.append(contentsOf:)` copies with one memcpy).
    ///
    /// SAFETY: valid while the transaction is open and the cursor not moved; callers copy the
    /// bytes before either happens.
    @inline(__always)
    var bufferPointer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: mv_size > 0 ? mv_data?.assumingMemoryBound(to: UInt8.self) : nil, count: mv_size)
    }

    /// Passes the bytes as a non-escapable span, which cannot outlive the call.
    ///
    /// SAFETY: the span borrows LMDB's memory map page; it is valid while the transaction is open
    /// and the cursor not moved, which holds for the duration of `body`.
    @inline(__always)
    func withSpan<R, E: Error>(_ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        let buffer = UnsafeBufferPointer(start: mv_data?.assumingMemoryBound(to: UInt8.self), count: mv_size)
        let span = Span(_unsafeElements: buffer)
        return try body(span)
    }
}

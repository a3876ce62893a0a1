import CLMDB

/// The single funnel every LMDB return code passes through.
///
/// Turns a non-zero code into a typed ``LMDBError``; callers that can meet `MDB_NOTFOUND` use
/// ``checkFound(_:_:context:)`` so that "absent" becomes `false`/`nil` at the boundary, not an error.
@inline(__always)
func check(_ code: Int32, _ operation: StaticString, context: @autoclosure () -> String = "") throws(LMDBError) {
    guard code == 0 else {
        throw LMDBError(code: code, operation: "\(operation)", context: context())
    }
}

/// Like ``check(_:_:context:)`` but maps `MDB_NOTFOUND` to `false`.
@inline(__always)
func checkFound(_ code: Int32, _ operation: StaticString, context: @autoclosure () -> String = "") throws(LMDBError) -> Bool {
    if code == MDB_NOTFOUND { return false }
    try check(code, operation, context: context())
    return true
}

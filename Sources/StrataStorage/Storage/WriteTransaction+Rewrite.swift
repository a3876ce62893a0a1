@_spi(Format) import StrataFormat
import LMDB

extension WriteTransaction {
    /// How many records a rewrite reads before it writes them back: the cursor is closed while
    /// they are written, and reopened after the last key read.
    package static let rewriteChunk = 4_096

    /// Rewrites the records of `context`'s entity in key order: `body` gets each record's stored
    /// key and bytes and returns its new bytes, or nil to leave it alone. Every change goes
    /// through the record writer (indexes, observation and the change log see it as any write),
    /// with index changes batched. An error `body` throws is rethrown as a ``StrataError`` naming
    /// the entity and the record's key. Returns how many records changed.
    @discardableResult
    package func rewriteRecords(_ context: EntityContext, _ body: (_ key: [UInt8], _ bytes: [UInt8]) throws -> [UInt8]?) throws -> Int {
        var changed = 0
        var after: [UInt8]?
        try batchingIndexWrites(context) {
            while true {
                let chunk = try readChunk(context, after: after)
                guard let last = chunk.last else { break }
                after = last.key
                for (key, bytes) in chunk {
                    let new: [UInt8]?
                    do { new = try body(key, bytes) } catch { throw recordFailure(error, key: key, context) }
                    guard let new, !OrderedKey.equal(new, bytes) else { continue }
                    let outcome = try writeRecord(new, forKey: key, context, replacing: true, prior: .stored(bytes)) {
                        describeStoredKey(key)
                    }
                    if outcome != .unchanged { changed += 1 }
                    try flushIndexBatchIfFull(context)
                }
                if chunk.count < Self.rewriteChunk { break }
            }
        }
        return changed
    }

    /// Up to `rewriteChunk` records after the key `after` (from the first when nil), copied.
    private func readChunk(_ context: EntityContext, after: [UInt8]?) throws -> [(key: [UInt8], bytes: [UInt8])] {
        try withRecordCursor(context) { cursor in
            var chunk: [(key: [UInt8], bytes: [UInt8])] = []
            chunk.reserveCapacity(Self.rewriteChunk)
            var more: Bool
            if let after {
                more = try cursor.seek(atLeast: after)
                if more, cursor.key == after { more = try cursor.next() }
            } else {
                more = try cursor.first()
            }
            while more, chunk.count < Self.rewriteChunk {
                chunk.append((cursor.key, cursor.value))
                more = try cursor.next()
            }
            return chunk
        }
    }

    /// `error`, thrown while rewriting the record `key`, as a ``StrataError`` naming the record.
    package func recordFailure(_ error: any Error, key: [UInt8], _ context: EntityContext) -> StrataError {
        let described = describeStoredKey(key)
        if var error = error as? StrataError {
            if error.key == nil || error.key == "" { error.key = described }
            if error.entity == nil { error.entity = context.name }
            return error
        }
        return StrataError(.invalidValue, "\(context.name) \(described): \(error)", entity: context.name, key: described, cause: error)
    }
}

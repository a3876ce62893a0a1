import Foundation
import LMDB

/// The batching mode of the one index-entry writer: during a bulk write of one entity's records,
/// ``IndexMaintainer`` holds its entry changes back (``IndexMaintainer/HeldChanges``) and applies them
/// in key order.
///
/// A bulk `upsert` or `insert` of a sequence changes entries at random places of each index's
/// B-tree: every change searched from the root, and in a large write transaction each page on the
/// way was also looked up in LMDB's list of dirty pages (a binary search that grows with the
/// transaction). Held back for up to ``IndexMaintainer/HeldChanges/recordLimit`` records and
/// applied sorted through one cursor per index, consecutive entries land on the page the cursor is
/// on, where LMDB searches without descending, and the primary keys of one index key, which arrive
/// ascending, are appended to its duplicates (`MDB_APPENDDUP`) when they sort last.
///
/// Only for entities without unique indexes (a unique check reads the index, which must then
/// hold every earlier record), and only while no other code can read the transaction: the
/// indexes are complete again when the bulk call returns or throws. The held changes live in the
/// entity's context (``EntityContext/heldIndexChanges``), not in one maintainer, because a
/// maintainer is made again when the entity's field ids change in the middle of a bulk write.
extension IndexMaintainer {
    /// The held entry changes of a bulk write, by index.
    package struct HeldChanges {
        /// The held changes of one index: each entry's key and primary key side by side in one
        /// buffer, so that sorting moves small values and compares bytes in place (an array per key
        /// made the sort cost more than the writes it saved).
        package struct Changes {
            package struct Entry {
                package let start: Int
                package let keyLength: Int32
                package let primaryKeyLength: Int32
                package let adds: Bool
            }
            package var bytes: [UInt8] = []
            package var entries: [Entry] = []

            package mutating func append(_ key: [UInt8], _ primaryKey: [UInt8], adds: Bool) {
                entries.append(Entry(start: bytes.count, keyLength: Int32(key.count), primaryKeyLength: Int32(primaryKey.count), adds: adds))
                bytes.append(contentsOf: key)
                bytes.append(contentsOf: primaryKey)
            }

            /// Calls `body` with each entry's key, primary key and kind, sorted by key, then primary
            /// key, then the order the changes were made in.
            ///
            /// SAFETY: the buffers lent to `body` point into `bytes`, which is not changed while they
            /// live (this is a non-mutating method) and outlives the call; every range lies inside
            /// it, as ``append(_:_:adds:)`` recorded it; `body` cannot keep them (LMDB copies keys and
            /// values on a put).
            package func forEachSorted(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws -> Void) throws {
                try bytes.withUnsafeBytes { base in
                    var order = Array(entries.indices)
                    order.withUnsafeMutableBufferPointer { order in
                        entries.withUnsafeBufferPointer { entries in
                            order.sort { a, b in
                                let x = entries[a], y = entries[b]
                                let keys = Self.compare(base, x.start, Int(x.keyLength), y.start, Int(y.keyLength))
                                if keys != 0 { return keys < 0 }
                                let primaryKeys = Self.compare(base, x.start + Int(x.keyLength), Int(x.primaryKeyLength),
                                                               y.start + Int(y.keyLength), Int(y.primaryKeyLength))
                                if primaryKeys != 0 { return primaryKeys < 0 }
                                return a < b
                            }
                        }
                    }
                    for index in order {
                        let entry = entries[index]
                        let key = UnsafeRawBufferPointer(rebasing: base[entry.start..<(entry.start + Int(entry.keyLength))])
                        let keyEnd = entry.start + Int(entry.keyLength)
                        let primaryKey = UnsafeRawBufferPointer(rebasing: base[keyEnd..<(keyEnd + Int(entry.primaryKeyLength))])
                        try body(key, primaryKey, entry.adds)
                    }
                }
            }

            /// memcmp order of two byte ranges of `base`, the shorter first on a tie.
            @inline(__always)
            private static func compare(_ base: UnsafeRawBufferPointer, _ a: Int, _ aLength: Int, _ b: Int, _ bLength: Int) -> Int32 {
                let common = min(aLength, bLength)
                if common > 0, let start = base.baseAddress {
                    let result = memcmp(start + a, start + b, common)
                    if result != 0 { return result }
                }
                return aLength == bLength ? 0 : (aLength < bLength ? -1 : 1)
            }
        }

        /// Records written before the changes are applied: large enough for long runs of keys on one
        /// page, small enough to keep the held changes at a few MiB.
        package static let recordLimit = 16_384

        /// The held changes by index name.
        package private(set) var changes: [String: Changes] = [:]
        /// Records written since the last application.
        package var records = 0

        /// Holds the change of the entry `key` → `primaryKey` of index `index` (stored keys).
        package mutating func note(_ key: [UInt8], _ primaryKey: [UInt8], adds: Bool, index: String) {
            changes[index, default: Changes()].append(key, primaryKey, adds: adds)
        }
    }

    /// Applies the entity's held changes, sorted by key and primary key, and holds later ones in a
    /// new, empty batch.
    package static func applyHeldChanges(_ transaction: WriteTransaction, _ context: EntityContext) throws {
        guard let held = context.heldIndexChanges else { return }
        context.heldIndexChanges = HeldChanges()
        for (name, changes) in held.changes {
            guard let database = context.indexes[name] else { continue }
            try transaction.withWritableCursor(database, entity: context.name) { cursor in
                try changes.forEachSorted { key, primaryKey, adds in
                    if adds {
                        do { try cursor.put(primaryKey, forKey: key, options: .appendDuplicate) } catch let error as LMDBError where error.isKeyExists {
                            try cursor.put(primaryKey, forKey: key)   // not the last duplicate
                        }
                    } else {
                        try transaction.removeIndexEntry(Array(key), primaryKey: Array(primaryKey), in: database, entity: context.name)
                    }
                }
            }
        }
    }
}

extension WriteTransaction {
    /// Runs `body`, which writes records of `context`'s entity, with the index maintainer in its
    /// batching mode when the entity has indexes and none is unique; `body` calls
    /// ``flushIndexBatchIfFull(_:)`` after each record. The indexes are complete when this returns
    /// or throws.
    package func batchingIndexWrites(_ context: EntityContext, _ body: () throws -> Void) throws {
        guard context.heldIndexChanges == nil, let stored = try? indexMaintainer(for: context), !stored.isEmpty,
              !stored.hasUniqueIndexes else {
            return try body()
        }
        context.heldIndexChanges = IndexMaintainer.HeldChanges()
        // Whatever happens, later writes of the transaction maintain their indexes at once.
        defer { context.heldIndexChanges = nil }
        do {
            try body()
        } catch {
            // The records written so far stay (a caller may catch and go on): so do their entries.
            try IndexMaintainer.applyHeldChanges(self, context)
            throw error
        }
        try IndexMaintainer.applyHeldChanges(self, context)
    }

    /// Applies the held index changes once ``IndexMaintainer/HeldChanges/recordLimit`` records were
    /// written.
    package func flushIndexBatchIfFull(_ context: EntityContext) throws {
        guard context.heldIndexChanges != nil else { return }
        context.heldIndexChanges!.records += 1
        if context.heldIndexChanges!.records >= IndexMaintainer.HeldChanges.recordLimit {
            try IndexMaintainer.applyHeldChanges(self, context)
        }
    }
}

@_spi(Format) import StrataFormat
import LMDB

extension ReadTransaction {
    /// The record with primary key `key`, or nil when there is none.
    ///
    /// ```swift
    /// let jimmy = try store.read { tx in try tx.get(User.self, key: 1) }
    /// ```
    public func get<T: Record>(_ type: T.Type, key: T.PrimaryKey) throws -> T? {
        guard let context = try context(for: type) else { return nil }
        // The key and the value go through buffers this transaction reuses: no allocation but the record's.
        var buffers = takeSpareBuffers()
        defer { returnSpareBuffers(&buffers) }
        // The entity's name and database read once: each read of a class property is an access check.
        let entity = context.name, records = context.records
        // Integer keys are encoded on the stack, others into the reused buffer.
        let found = try withRecordKey(key, entity: entity, buffer: &buffers.0) { storedKey in
            try lmdb(entity: entity) { try raw.copyValue(forKey: storedKey, in: records, into: &buffers.1) }
        }
        guard found else { return nil }
        return try decode(type, buffers.1, context) { String(describing: key) }
    }

    /// The records with these primary keys, in the order of `keys`; keys without a record are skipped
    /// (a key given twice gives its record twice).
    ///
    /// The lookups run on this thread while the records found are decoded on a second one
    /// (the decode pipeline), so this is the fast way to read many records by key; the records
    /// of a few keys (up to 256) are decoded on this thread as they are found.
    public func get<T: Record>(_ type: T.Type, keys: some Sequence<T.PrimaryKey>) throws -> [T] {
        guard let context = try context(for: type) else { return [] }
        let entity = context.name, database = context.records
        let expected = keys.underestimatedCount
        let pipeline = DecodePipeline<T>(fields: context.schema.fields, entity: entity, executor: store.decodeExecutor,
                                         expectedCount: expected > 0 ? expected : nil)
        // A lookup that throws stops the pipeline's decoding job.
        defer { pipeline.cancel() }
        let describe = { (key: [UInt8]) in self.describeStoredKey(key, of: type) }
        // Moved into one array at the end (see `QueryRequest.all()`).
        var records = DecodedRecords<T>()
        // One key buffer for every lookup: integer keys are written into it without an allocation.
        var storedKey: [UInt8] = []
        storedKey.reserveCapacity(16)
        let batchSize = BatchDecoder<T>.batchSize
        for key in keys {
            storedKey.removeAll(keepingCapacity: true)
            try recordKey(key, entity: entity, into: &storedKey)
            try lmdb(entity: entity) {
                _ = try raw.withValue(forKey: storedKey, in: database) { value in pipeline.append(key: storedKey, value: value) }
            }
            if pipeline.count >= batchSize { try pipeline.drain(describeKey: describe, into: &records) }
        }
        try pipeline.drain(describeKey: describe, into: &records)
        return records.moveIntoArray()
    }

    /// True when a record with primary key `key` exists; nothing is decoded.
    public func exists<T: Record>(_ type: T.Type, key: T.PrimaryKey) throws -> Bool {
        guard let context = try context(for: type) else { return false }
        let storedKey = try recordKey(key, entity: context.name)
        return try lmdb(entity: context.name) { try raw.contains(storedKey, in: context.records) }
    }

    /// The number of records of `type`, without reading them (O(1)).
    public func count<T: Record>(_ type: T.Type) throws -> Int {
        guard let context = try context(for: type) else { return 0 }
        return try lmdb(entity: context.name) { try raw.count(in: context.records) }
    }

    /// Every record of `type`, in primary key order.
    public func all<T: Record>(_ type: T.Type) throws -> [T] {
        var records: [T] = []
        // The count is O(1) and exact in this snapshot: the array is allocated once, not regrown
        // (and copied) about twenty times on the way to a million records.
        records.reserveCapacity(try count(type))
        // Its pages are faulted in by a worker meanwhile (see `ResultPrefault`).
        let prefault = ResultPrefault(reservedFor: records, executor: store.decodeExecutor)
        defer { prefault.wait() }
        // Each decoded record moves into the array (a `forEach` body would copy it).
        try scan(type, from: nil, to: nil) { (record: consuming T) in records.append(consume record); return true }
        return records
    }

    /// Calls `body` with every record of `type` in primary key order, decoding one at a time, so
    /// memory stays flat however many records there are. Return early by throwing.
    public func forEach<T: Record>(_ type: T.Type, _ body: (T) throws -> Void) throws {
        try scan(type, from: nil, to: nil, keepsRecords: false) { try body($0); return true }
    }

    /// The records whose primary keys lie in `range`, in key order.
    public func all<T: Record>(_ type: T.Type, in range: ClosedRange<T.PrimaryKey>) throws -> [T] where T.PrimaryKey: Comparable {
        try collect(type, from: .init(key: range.lowerBound, inclusive: true), to: .init(key: range.upperBound, inclusive: true))
    }

    /// The records whose primary keys lie in `range`, in key order.
    public func all<T: Record>(_ type: T.Type, in range: Range<T.PrimaryKey>) throws -> [T] where T.PrimaryKey: Comparable {
        try collect(type, from: .init(key: range.lowerBound, inclusive: true), to: .init(key: range.upperBound, inclusive: false))
    }

    /// The records whose primary keys are at least `range.lowerBound`, in key order.
    public func all<T: Record>(_ type: T.Type, in range: PartialRangeFrom<T.PrimaryKey>) throws -> [T] where T.PrimaryKey: Comparable {
        try collect(type, from: .init(key: range.lowerBound, inclusive: true), to: nil)
    }

    /// The records whose primary keys are at most `range.upperBound`, in key order.
    public func all<T: Record>(_ type: T.Type, in range: PartialRangeThrough<T.PrimaryKey>) throws -> [T] where T.PrimaryKey: Comparable {
        try collect(type, from: nil, to: .init(key: range.upperBound, inclusive: true))
    }

    /// The records whose primary keys are below `range.upperBound`, in key order.
    public func all<T: Record>(_ type: T.Type, in range: PartialRangeUpTo<T.PrimaryKey>) throws -> [T] where T.PrimaryKey: Comparable {
        try collect(type, from: nil, to: .init(key: range.upperBound, inclusive: false))
    }

    /// The record with the smallest primary key, or nil when there are none.
    public func first<T: Record>(_ type: T.Type) throws -> T? {
        var found: T?
        try scan(type, from: nil, to: nil, batchSize: 1) { found = $0; return false }
        return found
    }

    /// The record with the largest primary key, or nil when there are none.
    public func last<T: Record>(_ type: T.Type) throws -> T? {
        guard let context = try context(for: type) else { return nil }
        let entry: (key: [UInt8], value: [UInt8])? = try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in try cursor.last() ? (cursor.key, cursor.value) : nil }
        }
        guard let entry else { return nil }
        return try decode(type, entry.value, context) { describeStoredKey(entry.key, of: type) }
    }
}

/// One end of a primary key range.
package struct KeyBound<Key: IndexableValue> {
    package var key: Key
    package var inclusive: Bool
}

extension ReadTransaction {
    private func collect<T: Record>(_ type: T.Type, from lower: KeyBound<T.PrimaryKey>?, to upper: KeyBound<T.PrimaryKey>?) throws -> [T] {
        var records: [T] = []
        try scan(type, from: lower, to: upper) { (record: consuming T) in records.append(consume record); return true }
        return records
    }

    /// Walks records in key order between the bounds; `body` returns false to stop. Each record is
    /// `body`'s to keep: it is moved out of its batch, never copied. A `body` that lets each record
    /// go (`keepsRecords` false) gets copies instead, and the records are freed by the threads
    /// that decoded them (see ``DecodedRecords/forEach(freeingOn:_:)``).
    ///
    /// Raw records are gathered in batches on this thread and decoded by ``BatchDecoder``
    /// (in parallel when the batch is large), then handed to `body` in key order.
    package func scan<T: Record>(
        _ type: T.Type, from lower: KeyBound<T.PrimaryKey>?, to upper: KeyBound<T.PrimaryKey>?,
        batchSize: Int = BatchDecoder<T>.batchSize, keepsRecords: Bool = true, _ body: (consuming T) throws -> Bool
    ) throws {
        guard let context = try context(for: type) else { return }
        let lowerKey = try lower.map { bound throws(StrataError) in (try recordKey(bound.key, entity: context.name), bound.inclusive) }
        let upperKey = try upper.map { bound throws(StrataError) in (try recordKey(bound.key, entity: context.name), bound.inclusive) }
        let decoder = BatchDecoder<T>(fields: context.schema.fields, entity: context.name, executor: store.decodeExecutor)
        var batch = RawBatch(capacity: batchSize)
        // Large scans overlap: while a worker decodes a share of a full batch, this one
        // hands the previous batch's records to `body`, gathers the next batch, and decodes the
        // rest of the first. The share adapts (``ScanShare``) so that both threads finish together,
        // whatever `body` and gathering cost.
        let overlaps = batchSize >= BatchDecoder<T>.batchSize && decoder.isParallel
        var pending: (batch: RawBatch, share: PendingDecode<T>, count: Int)?
        var share = ScanShare()
        let describe = { (key: [UInt8]) in self.describeStoredKey(key, of: type) }
        /// A decoded batch's buffers, kept for the next batch: fresh ones would be fresh pages.
        var spare: RawBatch?
        /// The records of the batch whose decoding is under way, once decoded.
        func finishPending() throws -> DecodedRecords<T>? {
            guard case (var started, let decoding, let count)? = pending else { return nil }
            pending = nil
            var otherWasDone = false
            let records = try decoder.finishDecoding(started, decoding, count: count, describeKey: describe, otherWasDone: &otherWasDone)
            share.adjust(otherWasDone: otherWasDone)
            started.removeAll()
            spare = started
            return records
        }
        /// Hands `records` to `body`: moved out, or copied and freed where decoded.
        func feed(_ records: inout DecodedRecords<T>?) throws -> Bool {
            guard records != nil else { return true }
            return try keepsRecords ? records!.forEach(body) : records!.forEach(freeingOn: store.decodeExecutor, body)
        }
        /// Decodes the gathered batch and feeds it to `body`; false when `body` asked to stop.
        func drain(final: Bool) throws -> Bool {
            var previous = try finishPending()
            if overlaps && !final {
                // A worker starts on this batch before `body` sees the previous one.
                let count = share.count(of: batch.count)
                pending = (batch, decoder.startDecoding(batch, 0..<count), count)
                if let reused = spare.take() { batch = reused } else { batch = RawBatch(capacity: batchSize, valueCapacity: batch.valueByteCount) }
                return try feed(&previous)
            }
            guard try feed(&previous) else { return false }
            defer { batch.removeAll() }
            var records: DecodedRecords<T>? = try decoder.decodeInOrder(batch, describeKey: describe)
            return try feed(&records)
        }
        defer { pending?.share.abandon() }   // no decoding outlives the scan
        try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in
                var more: Bool
                if let (key, inclusive) = lowerKey {
                    more = try cursor.seek(atLeast: key)
                    if more, !inclusive, cursor.key == key { more = try cursor.next() }
                } else {
                    more = try cursor.first()
                }
                while more {
                    // A batch's entries are copied in one call (no closure or checks per entry).
                    more = try batch.gather(from: cursor, limit: batchSize - batch.count, upTo: upperKey.map { ($0.0, $0.1) })
                    if batch.count >= batchSize {
                        guard try drain(final: false) else { return }
                    }
                }
                _ = try drain(final: true)
            }
        }
    }
}

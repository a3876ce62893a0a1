import Foundation

/// Bulk import of JSON payloads: mapped upserts and diff-sync, each in one write transaction.
///
/// ```swift
/// let report = try store.importJSON(contentsOf: url, as: User.self)
/// let report = try await store.importJSON(data, as: User.self, options: .init(
///     mode: .sync(scope: "city == 'Berlin'"), rootKey: "users", onError: .skip))
/// print(report)   // inserted 9,812 · updated 120 · unchanged 68 · deleted 3 · skipped 2 (record 17: …) · 0.41 s
/// ```
///
/// - The input is an array of record objects, a single object, an object holding the array
///   under ``ImportOptions/rootKey``, JSON Lines (a record a line), or keyed objects (an object
///   whose members are the records, `{"DE": {…}, "FR": {…}}`, each name filling
///   ``ImportOptions/keyField``); ``ImportOptions/inputFormat`` tells them apart from the input
///   unless it names one. Files are read in 1 MiB chunks: memory holds one record at a time, not
///   the file (a single-object document is one record). A record object with more members than
///   ``JSONLimits/maximumRecordFields`` (4,096) fails.
/// - JSON keys map to fields by convention (``KeyMapping``), by the type's ``Record/jsonKeys``, or
///   by ``ImportOptions/jsonKeys``; values are coerced to the field's type (see ``ValueConverter``).
/// - Upsert by primary key: a key absent from a JSON object leaves its field as stored, `null`
///   clears an optional field; a record whose bytes would not change is not rewritten.
/// - The same primary key twice in one payload: the last occurrence wins; the report counts it.
/// - Errors: malformed JSON throws `.malformedJSON` with byte, line and column (in JSON Lines, of
///   the bad line); a record that does not map throws `.invalidRecord` naming the record, counted
///   from 1, and the JSON key, or is skipped with ``ImportOptions/ErrorPolicy/skip``. Under
///   `.abort` nothing is written.
extension Store {
    // MARK: Record types

    /// Imports JSON `data` into the entity of `type`.
    @discardableResult
    public func importJSON<T: Record>(_ data: Data, as type: T.Type, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.bytes(Array(data)), try .record(type), options)
    }

    /// Imports the JSON file at `url` into the entity of `type`, reading it in chunks.
    @discardableResult
    public func importJSON<T: Record>(contentsOf url: URL, as type: T.Type, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.file(try Self.filePath(url)), try .record(type), options)
    }

    /// Imports JSON `data` on the store's writer thread, without blocking the caller's, after
    /// the async writes queued before it.
    ///
    /// Cancelling the calling task before the import starts throws `CancellationError` and
    /// writes nothing; once it runs, cancellation is checked between batches of records and
    /// throws `.cancelled`, rolling the import's transaction back (with
    /// ``ImportOptions/batchSize``, the batches committed before stay).
    @discardableResult
    public func importJSON<T: Record>(_ data: Data, as type: T.Type, options: ImportOptions = ImportOptions()) async throws -> ImportReport {
        let source = ImportSource.bytes(Array(data))
        return try await onWriter { flag in try self.runImport(source, try .record(type), options, flag) }
    }

    /// Imports the JSON file at `url` on the store's writer thread (cancellation as above).
    @discardableResult
    public func importJSON<T: Record>(contentsOf url: URL, as type: T.Type, options: ImportOptions = ImportOptions()) async throws -> ImportReport {
        let source = ImportSource.file(try Self.filePath(url))
        return try await onWriter { flag in try self.runImport(source, try .record(type), options, flag) }
    }

    /// Imports JSON from an async byte sequence (a network download, say). The bytes are spooled
    /// to a temporary file first, so that memory does not grow with the input and the write
    /// transaction can be retried from the start if the map must grow.
    @discardableResult
    public func importJSON<T: Record, Bytes: AsyncSequence & Sendable>(
        bytes: Bytes, as type: T.Type, options: ImportOptions = ImportOptions()
    ) async throws -> ImportReport where Bytes.Element == UInt8 {
        let spool = try await Self.spool(bytes)
        return try await onWriter { flag in
            try withExtendedLifetime(spool) { try self.runImport(.file(spool.path), try .record(type), options, flag) }
        }
    }

    // MARK: Described entities

    /// Imports JSON `data` into the entity `entity` describes, without a Swift type.
    @discardableResult
    public func importJSON(_ data: Data, entity: EntityDescription, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.bytes(Array(data)), .described(entity), options)
    }

    /// Imports the JSON file at `url` into the entity `entity` describes.
    @discardableResult
    public func importJSON(contentsOf url: URL, entity: EntityDescription, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.file(try Self.filePath(url)), .described(entity), options)
    }

    /// Imports JSON `data` into a described entity on the store's writer thread (cancellation as
    /// for record types).
    @discardableResult
    public func importJSON(_ data: Data, entity: EntityDescription, options: ImportOptions = ImportOptions()) async throws -> ImportReport {
        let source = ImportSource.bytes(Array(data))
        return try await onWriter { flag in try self.runImport(source, .described(entity), options, flag) }
    }

    /// Imports JSON from an async byte sequence into a described entity (spooled as above).
    @discardableResult
    public func importJSON<Bytes: AsyncSequence & Sendable>(
        bytes: Bytes, entity: EntityDescription, options: ImportOptions = ImportOptions()
    ) async throws -> ImportReport where Bytes.Element == UInt8 {
        let spool = try await Self.spool(bytes)
        return try await onWriter { flag in
            try withExtendedLifetime(spool) { try self.runImport(.file(spool.path), .described(entity), options, flag) }
        }
    }

    // MARK: Running

    /// Runs one import of `source` into `target`: every `importJSON` form ends here.
    func runImport(_ source: ImportSource, _ target: ImportTarget, _ options: ImportOptions,
                           _ cancellation: CancellationFlag? = nil) throws -> ImportReport {
        try JSONImporter(store: self, source: source, target: target, options: options, cancellation: cancellation).run()
    }

    /// The path of a file URL; `.invalidPath` for any other URL.
    static func filePath(_ url: URL) throws(StrataError) -> String {
        guard url.isFileURL else {
            throw StrataError(.invalidPath, "importJSON(contentsOf:) reads files; \(url) is not a file URL (download it and pass the bytes)")
        }
        return url.path
    }

    /// Writes `bytes` in 1 MiB chunks to a temporary file that is unlinked as soon as it is
    /// created, so that a killed process leaves nothing behind; the import reads it through
    /// ``ImportSpool/path``.
    private static func spool<Bytes: AsyncSequence>(_ bytes: Bytes) async throws -> ImportSpool where Bytes.Element == UInt8 {
        let spool = try ImportSpool()
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 20)
        for try await byte in bytes {
            chunk.append(byte)
            if chunk.count == 1 << 20 {
                try spool.write(chunk[...])
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try spool.write(chunk[...])
        return spool
    }
}

extension ImportTarget {
    /// A record type's entity, its declared indexes migrated.
    static func record<T: Record>(_ type: T.Type) throws -> ImportTarget {
        let description = try EntityDescription(type)
        return ImportTarget(description: description) { tx in
            let context = try tx.writableContext(for: type)
            tx.assignFieldIDs(description, context)
            return context
        }
    }

    /// An entity known by its description only.
    static func described(_ description: EntityDescription) -> ImportTarget {
        ImportTarget(description: description) { tx in
            let context = try tx.writableContext(for: description)
            tx.assignFieldIDs(description, context)
            return context
        }
    }

    /// An entity the store holds, written as it is: its catalog entry (fields, indexes,
    /// relationships) is not changed by `description`, which the store gave (nested imports
    /// into an entity ``ImportOptions/related`` does not name).
    static func existing(_ description: EntityDescription) -> ImportTarget {
        ImportTarget(description: description) { tx in
            let context = try tx.existingContext(named: description.name)
            tx.assignFieldIDs(description, context)
            return context
        }
    }
}

@_spi(Format) import StrataFormat
import Foundation
import LMDB

/// How long a store's change log keeps commits (see ``Store/enableChangeLog(retention:)``).
public enum ChangeLogRetention: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The last `n` logged commits.
    case commits(Int)
    /// Commits younger than this many seconds.
    case seconds(Double)
    /// Every commit until each registered reader has acknowledged it
    /// (``Store/acknowledgeChanges(through:reader:)``); everything while no reader is registered.
    case acknowledged

    public var description: String {
        switch self {
        case .commits(let count): "the last \(count) commits"
        case .seconds(let seconds): "commits of the last \(seconds) s"
        case .acknowledged: "commits until every registered reader acknowledged them"
        }
    }
}

/// One changed record in the change log.
public struct LoggedChange: Sendable, Equatable {
    /// What happened to the record.
    public enum Operation: UInt8, Sendable, Codable, CustomStringConvertible {
        /// The record was inserted, updated or deleted.
        case insert = 0, update = 1, delete = 2
        /// Every record of the entity was deleted at once (``WriteTransaction/deleteAll(_:)-(T.Type)``); the key is empty.
        case deleteAll = 3
        /// The entity's catalog entry changed (a new entity, new field ids, other indexes): the
        /// bytes are the entry's JSON, which a replica stores before the commit's records, whose
        /// field ids it defines. The key is empty.
        case schema = 4

        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            case .deleteAll: "deleteAll"
            case .schema: "schema"
            }
        }
    }

    /// The entity of the record.
    public let entity: String
    /// What happened to the record.
    public let operation: Operation
    /// The record's stored primary key: its order-preserving key bytes (empty for `deleteAll`).
    public let key: [UInt8]
    /// The record's stored bytes after the change (a CBOR map keyed by field ids); nil for deletes;
    /// for ``Operation/schema``, the entity's catalog entry (JSON).
    public let bytes: [UInt8]?

    /// A change to one record of `entity`.
    public init(entity: String, operation: Operation, key: [UInt8], bytes: [UInt8]?) {
        self.entity = entity
        self.operation = operation
        self.key = key
        self.bytes = bytes
    }
}

/// One committed write transaction in the change log: what it changed, in the order it changed it.
public struct LoggedCommit: Sendable, Equatable {
    /// Increases by one with every logged commit, from 1.
    public let sequence: UInt64
    /// When the commit was made (the writer's clock).
    public let time: Date
    /// The changes, in the order the commit made them.
    public let changes: [LoggedChange]
    /// The store and change log epoch the commit comes from (what a replica checks); nil for a
    /// commit made without one, which a replica refuses.
    public let origin: ChangeLogOrigin?

    /// A logged commit of the log `origin`.
    public init(sequence: UInt64, time: Date, changes: [LoggedChange], origin: ChangeLogOrigin? = nil) {
        self.sequence = sequence
        self.time = time
        self.changes = changes
        self.origin = origin
    }

    /// A fingerprint of the commit's changes (FNV-1a, 64 bits, over each change's operation,
    /// entity, key and bytes, with their lengths), which a replica records with its position to
    /// tell whether the source still holds the history it applied. Not the time, which the JSON
    /// lines carry to the millisecond only.
    var digest: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        func add(count: Int) { for shift in stride(from: 56, through: 0, by: -8) { add(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) } }
        func add(_ bytes: some Collection<UInt8>) {
            add(count: bytes.count)
            for byte in bytes { add(byte) }
        }
        for change in changes {
            add(change.operation.rawValue)
            add(change.entity.utf8)
            add(change.key)
            if let bytes = change.bytes { add(1); add(bytes) } else { add(0) }
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// The change log's storage: an LMDB database `changelog` keyed by the commit's sequence number
/// (8 bytes big-endian) and the change's position in it (4 bytes big-endian, from 1); position 0
/// holds the commit's header, a CBOR array `[seconds since 1970]`. Each change is a CBOR array
/// `[operation, entity, key, bytes or null]`. The catalog entry `changelog` holds the retention
/// (JSON) while the log is on, and `changelog/reader/NAME` each registered reader's acknowledged
/// sequence (8 bytes big-endian).
package enum ChangeLogFormat {
    package static let databaseName = "changelog"
    package static let catalogKey = Array("changelog".utf8)
    package static let readerPrefix = Array("changelog/reader/".utf8)

    package static func key(_ sequence: UInt64, _ position: UInt32) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(12)
        OrderedKey.appendBigEndian(sequence, to: &key)
        for shift in stride(from: 24, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: position >> UInt32(shift))) }
        return key
    }

    /// The sequence and position of a log key, or nil when it is not one.
    package static func parse(_ key: [UInt8]) -> (sequence: UInt64, position: UInt32)? {
        guard key.count == 12 else { return nil }
        var offset = 0
        guard let sequence = try? OrderedKey.readBigEndian(from: key, at: &offset) else { return nil }
        let position = key[8...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (sequence, position)
    }

    package static func header(time: Date) -> [UInt8] {
        var writer = CBORWriter(capacity: 16)
        writer.writeHead(.array, 1)
        writer.writeDouble(time.timeIntervalSince1970)
        return writer.bytes
    }

    package static func readHeader(_ bytes: [UInt8]) throws(CBORReadFailure) -> Date {
        let reader = CBORReader(bytes: bytes)
        var offset = 0
        let head = try reader.readHead(at: &offset)
        guard head.major == .array, head.argument == 1 else { throw .mismatch(offset: 0, expected: "a commit header") }
        return Date(timeIntervalSince1970: try reader.readDouble(at: &offset))
    }

    package static func change(_ operation: LoggedChange.Operation, entity: String, key: [UInt8], bytes: [UInt8]?) -> [UInt8] {
        var writer = CBORWriter(capacity: 32 + entity.utf8.count + key.count + (bytes?.count ?? 0))
        writer.writeHead(.array, 4)
        writer.writeInteger(Int64(operation.rawValue))
        writer.writeText(entity)
        writer.writeByteString(key)
        if let bytes { writer.writeByteString(bytes) } else { writer.writeNull() }
        return writer.bytes
    }

    package static func readChange(_ bytes: [UInt8]) throws(CBORReadFailure) -> LoggedChange {
        let reader = CBORReader(bytes: bytes)
        var offset = 0
        let head = try reader.readHead(at: &offset)
        guard head.major == .array, head.argument == 4 else { throw .mismatch(offset: 0, expected: "a logged change") }
        let code = try reader.readInteger(UInt8.self, at: &offset)
        guard let operation = LoggedChange.Operation(rawValue: code) else {
            throw .corrupt(offset: 1, reason: "unknown operation \(code)")
        }
        let entity = try reader.readString(at: &offset)
        let key = Array(bytes[try reader.readStringRange(.bytes, at: &offset)])
        let record: [UInt8]?
        if offset < bytes.count, bytes[offset] == CBOR.nullByte {
            record = nil
            offset += 1
        } else {
            record = Array(bytes[try reader.readStringRange(.bytes, at: &offset)])
        }
        guard offset == bytes.count else { throw .corrupt(offset: offset, reason: "bytes after a logged change") }
        return LoggedChange(entity: entity, operation: operation, key: key, bytes: record)
    }
}

/// The change log of one write transaction: the record writer appends each change as it is made,
/// in the transaction (a savepoint's changes go into its nested transaction, so a rolled-back
/// savepoint takes its entries with it); at the commit the header is written and old commits are
/// pruned in a bounded step. One writer is shared by a transaction and its savepoints.
package final class ChangeLogWriter {
    /// Entries pruned at most per commit, so that a commit never pays for a long backlog at once.
    package static let pruneStep = 4096

    package let database: Database
    package let retention: ChangeLogRetention
    /// This commit's sequence, found at the first change.
    private var sequence: UInt64?
    private var nextPosition: UInt32 = 1

    package init(database: Database, retention: ChangeLogRetention) {
        self.database = database
        self.retention = retention
    }

    /// Appends one change to this commit's entries.
    package func append(_ operation: LoggedChange.Operation, entity: String, key: [UInt8], bytes: [UInt8]?,
                in txn: LMDB.Transaction) throws {
        let sequence = try self.sequence ?? startCommit(in: txn)
        let position = nextPosition
        nextPosition += 1
        try txn.put(ChangeLogFormat.change(operation, entity: entity, key: key, bytes: bytes),
                    forKey: ChangeLogFormat.key(sequence, position), in: database, options: .append)
    }

    /// The sequence after the last logged commit.
    private func startCommit(in txn: LMDB.Transaction) throws -> UInt64 {
        let last = try txn.withCursor(database) { cursor in
            try cursor.last() ? ChangeLogFormat.parse(cursor.key)?.sequence : nil
        }
        let sequence = (last ?? 0) + 1
        self.sequence = sequence
        return sequence
    }

    /// At the commit: writes the header of a commit that logged changes, then prunes. Returns the
    /// commit's sequence, or nil when it logged nothing.
    package func finish(in txn: LMDB.Transaction, catalog: Database, now: Date = Date()) throws -> UInt64? {
        guard let sequence else { return nil }
        try txn.put(ChangeLogFormat.header(time: now), forKey: ChangeLogFormat.key(sequence, 0), in: database)
        try prune(in: txn, catalog: catalog, current: sequence, now: now)
        return sequence
    }

    /// Deletes at most ``pruneStep`` entries of commits the retention no longer keeps, oldest first.
    private func prune(in txn: LMDB.Transaction, catalog: Database, current: UInt64, now: Date) throws {
        let keepFrom: UInt64?   // the first sequence kept, when it is known from the sequence alone
        switch retention {
        case .commits(let count): keepFrom = current >= UInt64(max(count, 1)) ? current - UInt64(max(count, 1)) + 1 : 1
        case .seconds: keepFrom = nil
        case .acknowledged: keepFrom = try ChangeLogReaders.all(in: txn, catalog: catalog).values.min().map { $0 == .max ? $0 : $0 + 1 } ?? 1
        }
        try txn.withWritableCursor(database) { cursor in
            var deleted = 0
            var more = try cursor.first()
            while more, deleted < Self.pruneStep {
                guard let (sequence, position) = ChangeLogFormat.parse(cursor.key), sequence < current else { return }
                if let keepFrom {
                    guard sequence < keepFrom else { return }
                } else if case .seconds(let seconds) = retention, position == 0 {
                    // A commit is judged at its header; entries without one belong to a commit
                    // whose pruning a bounded step left unfinished.
                    guard let time = try? ChangeLogFormat.readHeader(cursor.value), now.timeIntervalSince(time) > seconds else { return }
                }
                try cursor.deleteCurrent()
                deleted += 1
                more = try cursor.next()
            }
        }
    }
}

/// The registered readers of a change log and the sequence each has acknowledged.
package enum ChangeLogReaders {
    package static func all(in txn: LMDB.Transaction, catalog: Database) throws -> [String: UInt64] {
        try txn.withCursor(catalog) { cursor in
            var readers: [String: UInt64] = [:]
            var more = try cursor.seek(atLeast: ChangeLogFormat.readerPrefix)
            while more, cursor.key.starts(with: ChangeLogFormat.readerPrefix) {
                var offset = 0
                if cursor.value.count == 8, let sequence = try? OrderedKey.readBigEndian(from: cursor.value, at: &offset) {
                    readers[String(decoding: cursor.key.dropFirst(ChangeLogFormat.readerPrefix.count), as: UTF8.self)] = sequence
                }
                more = try cursor.next()
            }
            return readers
        }
    }

    package static func key(_ reader: String) -> [UInt8] { ChangeLogFormat.readerPrefix + Array(reader.utf8) }

    package static func value(_ sequence: UInt64) -> [UInt8] {
        var value: [UInt8] = []
        OrderedKey.appendBigEndian(sequence, to: &value)
        return value
    }
}

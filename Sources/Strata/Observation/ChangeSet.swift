import LMDB

/// What a committed write transaction changed, per entity: the stored primary keys it wrote or
/// deleted, or "any record" when it changed more than ``ChangeSet/keyLimit`` or wrote without
/// noting keys (an import, dropping every record). Observers use it to skip work for commits
/// that cannot have changed their results.
public struct ChangeSet: Sendable, Equatable {
    /// Changed records of one entity.
    public enum Keys: Sendable, Equatable {
        /// These stored primary keys (order-preserving key bytes).
        case some(Set<[UInt8]>)
        /// Possibly any record.
        case all
    }

    /// Keys kept per entity before the change counts as `.all`.
    static let keyLimit = 1_000
    /// Bytes of written records kept in all, so that observers can check them without a read.
    static let byteLimit = 1 << 20

    /// The changed entities.
    public private(set) var entities: [String: Keys] = [:]
    /// Changes made by another process: which entities is unknown.
    public private(set) var isExternal = false
    /// The records as the transaction left them, by entity and stored key (nil: deleted), while
    /// they fit ``byteLimit``: observers decide from these whether a commit concerns them.
    private(set) var records: [String: [[UInt8]: [UInt8]?]] = [:]
    private var recordBytes = 0
    private var recordsComplete = true
    /// Off while nothing observes the store: notes only that something changed (``missed``),
    /// so that bulk writes pay nothing for observation.
    var isTracking = true
    /// Something changed while tracking was off: observers registered meanwhile must re-read.
    private(set) var missed = false
    public init() {}

    /// A change of unknown extent from another process.
    static var external: ChangeSet {
        var changes = ChangeSet()
        changes.isExternal = true
        return changes
    }

    public var isEmpty: Bool { entities.isEmpty && !isExternal }

    /// True when `entity` may have changed.
    public func touches(_ entity: String) -> Bool { isExternal || entities[entity] != nil }

    /// The stored bytes of the changed record `key` of `entity` after the commit: `.some(nil)`
    /// when deleted, nil when not kept (too many, or written without noting the bytes).
    func record(_ entity: String, key: [UInt8]) -> [UInt8]?? {
        records[entity]?[key]
    }

    /// Notes a change of `key` (nil: any record) of `entity`, with the record's bytes after it
    /// (nil for a delete).
    mutating func note(_ entity: String, key: [UInt8]?, bytes: [UInt8]?) {
        guard isTracking else { missed = true; return }
        note(entity, key: key)
        guard let key, case .some = entities[entity] else { records[entity] = nil; return }
        let size = key.count + (bytes?.count ?? 0)
        guard recordsComplete, recordBytes + size <= Self.byteLimit else {
            recordsComplete = false
            records = [:]
            return
        }
        recordBytes += size
        records[entity, default: [:]][key] = .some(bytes)
    }

    mutating func note(_ entity: String, key: [UInt8]?) {
        guard isTracking else { missed = true; return }
        switch (entities[entity], key) {
        case (.all?, _): return
        case (_, nil): entities[entity] = .all
        case (.some(var keys)?, let key?):
            keys.insert(key)
            entities[entity] = keys.count > Self.keyLimit ? .all : .some(keys)
        case (nil, let key?): entities[entity] = .some([key])
        }
    }

    mutating func merge(_ other: ChangeSet) {
        isExternal = isExternal || other.isExternal
        missed = missed || other.missed
        for (entity, keys) in other.entities {
            switch keys {
            case .all: note(entity, key: nil)
            case .some(let set):
                for key in set {
                    if let bytes = other.record(entity, key: key) { note(entity, key: key, bytes: bytes) } else {
                        note(entity, key: key)
                        records[entity]?[key] = nil
                        recordsComplete = false
                    }
                }
            }
        }
    }

    public static func == (a: ChangeSet, b: ChangeSet) -> Bool { a.entities == b.entities && a.isExternal == b.isExternal }
}

import LMDB

/// What a committed write transaction changed, per entity: the stored primary keys it wrote or
/// deleted, or "any record" when it changed more than `keyLimit` or wrote without
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

    /// The changes of one entity, as a write records them: the keys in the order first noted,
    /// with the record's bytes after the last change of each (nil: deleted) at the same position.
    /// Arrays, not sets and dictionaries: a small commit notes one or a few keys, and each note
    /// then costs a comparison or two instead of hashing and a copy of a set.
    package struct EntityChanges: Sendable {
        /// Possibly any record: ``keys`` and ``records`` are empty.
        package var all = false
        package var keys: [[UInt8]] = []
        package var records: [[UInt8]?] = []
        /// The position of each key, kept once there are more than ``linearLimit`` keys.
        package var positions: [[UInt8]: Int]?
        package static let linearLimit = 16

        /// The position of `key`, if noted.
        package func position(of key: [UInt8]) -> Int? {
            if let positions { return positions[key] }
            return keys.firstIndex(of: key)
        }

        /// Notes `key`, with the record's bytes after the change when `keepingBytes`; past
        /// `keyLimit` keys the entity counts as ``all``.
        package mutating func note(_ key: [UInt8], bytes: [UInt8]?, keepingBytes: Bool) {
            if all { return }
            if let position = position(of: key) {
                if keepingBytes { records[position] = bytes }
                return
            }
            guard keys.count < ChangeSet.keyLimit else { becomeAll(); return }
            keys.append(key)
            if keepingBytes { records.append(bytes) }
            if positions != nil {
                positions![key] = keys.count - 1
            } else if keys.count > Self.linearLimit {
                positions = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
            }
        }

        package mutating func becomeAll() {
            all = true
            keys = []
            records = []
            positions = nil
        }
    }

    /// Keys kept per entity before the change counts as `.all`.
    package static let keyLimit = 1_000
    /// Bytes of written records kept in all, so that observers can check them without a read.
    package static let byteLimit = 1 << 20

    /// The changes by entity name.
    package private(set) var changed: [String: EntityChanges] = [:]
    /// Changes made by another process: which entities is unknown.
    public private(set) var isExternal = false
    private var recordBytes = 0
    /// The records' bytes are kept for every noted key (none went over ``byteLimit`` and every
    /// key was noted with its bytes).
    package private(set) var recordsComplete = true
    /// Off while nothing observes the store: notes only that something changed (``missed``),
    /// so that bulk writes pay nothing for observation.
    package var isTracking = true
    /// Something changed while tracking was off: observers registered meanwhile must re-read.
    package private(set) var missed = false
    /// An empty change set.
    public init() {}

    /// A change of unknown extent from another process.
    package static var external: ChangeSet {
        var changes = ChangeSet()
        changes.isExternal = true
        return changes
    }

    /// The changed entities.
    public var entities: [String: Keys] {
        changed.mapValues { $0.all ? .all : .some(Set($0.keys)) }
    }

    /// True when nothing changed (and the set is not a change of unknown extent from another process).
    public var isEmpty: Bool { changed.isEmpty && !isExternal }

    /// True when `entity` may have changed.
    public func touches(_ entity: String) -> Bool { isExternal || changed[entity] != nil }

    /// True when the commit may have written or deleted the record `key` of `entity`.
    package func touches(_ entity: String, key: [UInt8]) -> Bool {
        if isExternal { return true }
        guard let changes = changed[entity] else { return false }
        return changes.all || changes.position(of: key) != nil
    }

    /// The stored bytes of the changed record `key` of `entity` after the commit: `.some(nil)`
    /// when deleted, nil when not kept (too many, or written without noting the bytes).
    package func record(_ entity: String, key: [UInt8]) -> [UInt8]?? {
        guard recordsComplete, let changes = changed[entity], let position = changes.position(of: key) else { return nil }
        return .some(changes.records[position])
    }

    /// Notes a change of `key` (nil: any record) of `entity`, with the record's bytes after it
    /// (nil for a delete).
    package mutating func note(_ entity: String, key: [UInt8]?, bytes: [UInt8]?) {
        guard isTracking else { missed = true; return }
        guard let key else { changed[entity, default: EntityChanges()].becomeAll(); return }
        if recordsComplete {
            let size = key.count + (bytes?.count ?? 0)
            if recordBytes + size <= Self.byteLimit {
                recordBytes += size
            } else {
                dropRecords()
            }
        }
        changed[entity, default: EntityChanges()].note(key, bytes: bytes, keepingBytes: recordsComplete)
    }

    /// Notes a change of `key` (nil: any record) of `entity` whose bytes are not known.
    package mutating func note(_ entity: String, key: [UInt8]?) {
        guard isTracking else { missed = true; return }
        guard let key else { changed[entity, default: EntityChanges()].becomeAll(); return }
        dropRecords()
        changed[entity, default: EntityChanges()].note(key, bytes: nil, keepingBytes: false)
    }

    /// Stops keeping records' bytes (over the budget, or one is unknown): observers then read.
    private mutating func dropRecords() {
        guard recordsComplete else { return }
        recordsComplete = false
        for entity in changed.keys { changed[entity]!.records = [] }
    }

    package mutating func merge(_ other: ChangeSet) {
        isExternal = isExternal || other.isExternal
        missed = missed || other.missed
        for (entity, changes) in other.changed {
            if changes.all { note(entity, key: nil); continue }
            for (position, key) in changes.keys.enumerated() {
                if other.recordsComplete { note(entity, key: key, bytes: changes.records[position]) } else { note(entity, key: key) }
            }
        }
    }

    public static func == (a: ChangeSet, b: ChangeSet) -> Bool { a.entities == b.entities && a.isExternal == b.isExternal }
}

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

    /// The changed entities.
    public private(set) var entities: [String: Keys] = [:]
    /// Changes made by another process: which entities is unknown.
    public private(set) var isExternal = false

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

    mutating func note(_ entity: String, key: [UInt8]?) {
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
        for (entity, keys) in other.entities {
            switch keys {
            case .all: note(entity, key: nil)
            case .some(let set): for key in set { note(entity, key: key) }
            }
        }
    }
}

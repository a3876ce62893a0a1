import LMDB

/// The stored field paths of key paths, remembered: ``FieldPath/components(of:)`` builds them
/// from the key path's description, which is slow each time (the description walks
/// the runtime's metadata and looks up conformances), and queries name the same few key paths
/// again and again. Shared by every thread; bounded (it starts over when full), so key paths
/// made on the fly cannot grow it without end.
package enum KeyPathNames {
    /// The stored field path of `keyPath`, as ``FieldPath/components(of:)`` names it.
    package static func components<Root, Value>(of keyPath: KeyPath<Root, Value>) -> [String] {
        let key = Key(keyPath: keyPath)
        if let known = cache.withLock({ $0[key] }) { return known }
        let path = FieldPath.components(of: keyPath)
        cache.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = path
        }
        return path
    }

    /// Entries kept at most.
    package static var capacity: Int { 1024 }

    /// A key path as a dictionary key: equal when the key paths are (same root and components),
    /// whichever instance the program made.
    private struct Key: Hashable, @unchecked Sendable {
        // @unchecked: key paths are immutable; the cache only hashes and compares them.
        let keyPath: AnyKeyPath
    }

    /// Names found before, shared by every thread.
    private static let cache = ConditionLock<[Key: [String]]>([:])
}

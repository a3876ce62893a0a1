/// The stable small integer ids of one entity's top-level field names.
///
/// Records are stored as CBOR maps keyed by these ids rather than by names, which keeps them compact
/// and lets a field be renamed in the catalog without rewriting records. Ids are never reused: a field
/// that disappears from the type keeps its id, so old records that still hold it decode (the unknown
/// id is skipped) and a later field of the same name gets the same id back.
///
/// The table is persisted in the store's catalog, per entity. Encoding assigns ids to names it has not
/// seen; the store writes the grown table in the same write transaction as the record.
package struct FieldTable: Sendable, Equatable, Encodable {
    /// The three views of the table in one object: a copy of the table (each decoded record's
    /// reader holds one) retains one object rather than two dictionaries and an array. Copy on
    /// write: an addition changes the object in place when this table is its only holder, and
    /// copies it first otherwise, so adding many fields costs amortised constant time each.
    private final class Storage: @unchecked Sendable {
        // @unchecked: mutated only by `FieldTable.assign` through `isKnownUniquelyReferenced`, that
        // is, never while another table (on any thread) holds it. For the same reason no access
        // can overlap a mutation, so the properties go without the run-time exclusivity check that
        // a class's stored `var` gets at every read (each decoded field looks its id up here).
        @exclusivity(unchecked) var names: [Int: String]
        @exclusivity(unchecked) var ids: [String: Int]
        @exclusivity(unchecked) var namesByID: [String?]
        /// The largest id given so far; the next new name gets the one after.
        @exclusivity(unchecked) var largestID: Int
        /// How many copies made this object, counting back through the copies it came from.
        let copies: Int

        init(names: [Int: String], ids: [String: Int], namesByID: [String?], copies: Int = 0) {
            self.names = names
            self.ids = ids
            self.namesByID = namesByID
            self.largestID = names.keys.max() ?? 0
            self.copies = copies
        }

        /// A copy to change, counted when it copies any entries.
        func copy() -> Storage {
            Storage(names: names, ids: ids, namesByID: namesByID, copies: names.isEmpty ? copies : copies + 1)
        }

        static let empty = Storage(names: [:], ids: [:], namesByID: [])
    }

    private var storage: Storage

    /// Field names by id.
    package var names: [Int: String] { storage.names }
    /// Field ids by name.
    package var ids: [String: Int] { storage.ids }
    /// Field names indexed by id (nil where no field has that id): the codec's hash-free lookup path.
    package var namesByID: [String?] { storage.namesByID }

    package init() { storage = .empty }

    /// How many times additions copied this table's storage (tests count them).
    package var storageCopies: Int { storage.copies }

    /// A table holding exactly these id-to-name pairs.
    package init(names: [Int: String]) {
        var ids: [String: Int] = [:]
        var dense: [String?] = []
        for (id, name) in names {
            ids[name] = id
            Self.setDense(id, name, in: &dense)
        }
        storage = Storage(names: names, ids: ids, namesByID: dense)
    }

    package static func == (lhs: FieldTable, rhs: FieldTable) -> Bool {
        lhs.storage === rhs.storage || (lhs.names == rhs.names && lhs.ids == rhs.ids && lhs.namesByID == rhs.namesByID)
    }

    /// The id of `name`, or nil when the name has never been stored.
    @inline(__always)
    package func id(for name: String) -> Int? { ids[name] }

    /// The name of `id`, or nil when the id is unknown (written by a newer schema, or corrupt).
    @inline(__always)
    package func name(for id: Int) -> String? { id >= 0 && id < namesByID.count ? namesByID[id] : names[id] }

    /// The id of `name`, trying the ids just after `previous` first: records write and read their
    /// fields in declaration order, which is usually id order (an omitted nil field in between makes
    /// the next id the one after), so most lookups compare one or two short names and hash nothing.
    @inline(__always)
    package func id(for name: String, after previous: Int) -> Int? {
        let names = storage.namesByID
        var guess = previous + 1
        while guess < names.count && guess <= previous + 3 {
            if names[guess] == name { return guess }
            guess += 1
        }
        // A short scan of the dense names beats hashing the name (a field first stored after its
        // neighbours has an id out of declaration order).
        if names.count <= 64 {
            for id in 1..<max(names.count, 1) where CBOR.sameName(names[id], name) { return id }
        }
        return ids[name]
    }

    /// The largest field id a table may hold: the codec's dense lookup covers the ids up to it,
    /// and a replica refuses a table with a larger one (so no entity has more fields than this).
    package static let largestID = 65_535

    private static func setDense(_ id: Int, _ name: String, in namesByID: inout [String?]) {
        // Ids are small and dense in practice; a corrupt catalog's huge id simply stays out of the array.
        guard id >= 0, id < 65_536 else { return }
        if id >= namesByID.count { namesByID.append(contentsOf: repeatElement(nil, count: id - namesByID.count + 1)) }
        namesByID[id] = name
    }

    /// The id of `name`, assigning the next free id (starting at 1) when the name is new.
    @discardableResult
    package mutating func assign(_ name: String) -> Int {
        if let id = ids[name] { return id }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let id = storage.largestID + 1
        storage.largestID = id
        storage.names[id] = name
        storage.ids[name] = id
        Self.setDense(id, name, in: &storage.namesByID)
        return id
    }

    /// The id of `name` as ``id(for:after:)`` finds it, assigning the next free id when the name is new.
    @inline(__always)
    package mutating func assign(_ name: String, after previous: Int) -> (id: Int, isNew: Bool) {
        if let id = id(for: name, after: previous) { return (id, false) }
        return (assign(name), true)
    }

    /// Gives the field `id` the name `name` (a migration's rename, or a removal's tombstone,
    /// `removedName(_:id:)`): records keep their bytes, since they hold ids. `name` must not be
    /// another field's.
    package mutating func rename(_ id: Int, to name: String) {
        guard let old = names[id], old != name else { return }
        precondition(ids[name] == nil, "FieldTable.rename: '\(name)' names another field")
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.ids[old] = nil
        storage.names[id] = name
        storage.ids[name] = id
        Self.setDense(id, name, in: &storage.namesByID)
    }

    /// What a removed field's id is named, so the id is never given again while its old name is
    /// free for a new field: `~removed/<id>/<name>`.
    package static func removedName(_ name: String, id: Int) -> String { "\(removedPrefix)\(id)/\(name)" }

    /// The prefix of removed fields' names.
    package static let removedPrefix = "~removed/"

    /// Whether `name` is a removed field's (`removedName(_:id:)`).
    package static func isRemoved(_ name: String) -> Bool { name.hasPrefix(removedPrefix) }

    /// The number of known fields.
    package var count: Int { names.count }

    /// The pairs in id order.
    package var entries: [(id: Int, name: String)] {
        names.sorted { $0.key < $1.key }.map { (id: $0.key, name: $0.value) }
    }

    private enum CodingKeys: String, CodingKey { case fields }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var pairs: [String: String] = [:]
        for (id, name) in names { pairs[String(id)] = name }
        try container.encode(pairs, forKey: .fields)
    }
}

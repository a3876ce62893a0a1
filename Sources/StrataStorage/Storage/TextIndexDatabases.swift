import LMDB

/// The four LMDB databases of one full-text index (ARCHITECTURE §8), for records database
/// `records/<X>`: `text/<X>/<name>/postings` (segment, term, 0x00, first document → a posting
/// block; document 0 → the term's summary in that segment), `…/documents` (document id → its
/// entry; id 0 → the index's header), `…/keys` (primary key → document id) and `…/deleted`
/// (document ids whose postings a merge has not dropped yet). Plain databases, no duplicates.
package struct TextIndexDatabases: Sendable {
    package let postings: Database
    package let documents: Database
    package let keys: Database
    package let deleted: Database

    /// The databases' common name stem for the index `index` of `schema`'s entity:
    /// `text/<X>/<index>` for records database `records/<X>`.
    package static func stem(_ index: String, of schema: EntitySchema) -> String {
        let prefix = "records/"
        let entity = schema.recordsDatabase.hasPrefix(prefix) ? String(schema.recordsDatabase.dropFirst(prefix.count)) : schema.name
        return "text/\(entity)/\(index)"
    }

    /// The four names, in the order of the properties.
    package static func names(_ index: String, of schema: EntitySchema) -> [String] {
        let stem = stem(index, of: schema)
        return ["\(stem)/postings", "\(stem)/documents", "\(stem)/keys", "\(stem)/deleted"]
    }

    package var all: [Database] { [postings, documents, keys, deleted] }
}

extension ReadTransaction {
    /// The databases of the full-text index `index` of `schema`'s entity, or nil when one is missing.
    package func existingTextIndexDatabases(_ index: String, of schema: EntitySchema) throws -> TextIndexDatabases? {
        var found: [Database] = []
        for name in TextIndexDatabases.names(index, of: schema) {
            guard let database = try lmdb(entity: schema.name, { try raw.openDatabase(name) }) else { return nil }
            found.append(database)
        }
        return TextIndexDatabases(postings: found[0], documents: found[1], keys: found[2], deleted: found[3])
    }

    /// The value of `key` in a database of a full-text index of `entity`.
    package func textIndexValue(forKey key: [UInt8], in database: Database, entity: String) throws -> [UInt8]? {
        try lmdb(entity: entity) { try raw.value(forKey: key, in: database) }
    }

    /// The last entry at or before `key` in a database of a full-text index of `entity`, nil
    /// when every key is after it.
    package func textIndexEntry(atMost key: [UInt8], in database: Database, entity: String) throws -> (key: [UInt8], value: [UInt8])? {
        try lmdb(entity: entity) {
            try raw.withCursor(database) { cursor in
                let positioned = try cursor.seek(atLeast: key)
                if positioned, cursor.key == key { return (cursor.key, cursor.value) }
                guard try positioned ? cursor.previous() : cursor.last() else { return nil }
                return (cursor.key, cursor.value)
            }
        }
    }

    /// Calls `body` with each key and value of a database of a full-text index of `entity`, in key
    /// order, from the first key at or after `start`, until it returns false.
    package func forEachTextIndexEntry(in database: Database, from start: [UInt8] = [], entity: String,
                               _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws {
        try lmdb(entity: entity) {
            try raw.withCursor(database) { cursor in
                var more = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
                while more, try body(cursor.key, cursor.value) { more = try cursor.next() }
            }
        }
    }
}

extension WriteTransaction {
    /// Opens (creating them) the databases of the full-text index `index` of `schema`'s entity.
    package func openTextIndexDatabases(_ index: String, of schema: EntitySchema) throws -> TextIndexDatabases {
        var opened: [Database] = []
        for name in TextIndexDatabases.names(index, of: schema) {
            try checkDatabaseName(name, entity: schema.name)
            let database = try lmdb(entity: schema.name) { try raw.openDatabase(name, options: .create) }
            guard let database else { preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database") }
            opened.append(database)
        }
        return TextIndexDatabases(postings: opened[0], documents: opened[1], keys: opened[2], deleted: opened[3])
    }

    /// Stores `value` under `key` in a database of a full-text index of `entity`.
    package func putTextIndexValue(_ value: [UInt8], forKey key: [UInt8], in database: Database, entity: String) throws {
        try lmdb(entity: entity) { try raw.put(value, forKey: key, in: database) }
    }

    /// Removes `key` from a database of a full-text index of `entity`, if it is there.
    package func deleteTextIndexKey(_ key: [UInt8], in database: Database, entity: String) throws {
        _ = try lmdb(entity: entity) { try raw.delete(key, in: database) }
    }

    /// Stores `entries`, whose keys ascend and sort after every key of `database`, at its end
    /// (`MDB_APPEND`: no B-tree search, full pages): a new segment's postings, new documents.
    package func appendTextIndexEntries(_ entries: [(key: [UInt8], value: [UInt8])], to database: Database, entity: String) throws {
        guard !entries.isEmpty else { return }
        try lmdb(entity: entity) {
            try raw.withWritableCursor(database) { cursor in
                for entry in entries { try cursor.put(entry.value, forKey: entry.key, options: .append) }
            }
        }
    }
}

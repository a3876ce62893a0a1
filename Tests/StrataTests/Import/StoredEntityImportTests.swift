import Dispatch
import Foundation
import Testing
import TestSupport
@testable import Strata

/// Imports into "the entity as stored" take the entity's description, field ids and mappings in
/// their own write transaction, so a migration and an import, whichever order their write
/// transactions take, leave the store as one ran after the other.
@Suite struct StoredEntityImportTests {
    static let item = EntityDescription(name: "Item", primaryKey: "id", fields: [
        FieldDescription("id", .integer), FieldDescription("name", .string), FieldDescription("qty", .string),
    ])

    /// The records the store starts with, and the ones the import brings (every one of them:
    /// the race covers every record).
    static let seed = Data(#"[{"id": 1, "name": "a", "qty": "1"}, {"id": 2, "name": "b", "qty": "2"}, {"id": 3, "name": "c", "qty": "3"}]"#.utf8)
    static let payload = Data(#"[{"id": 1, "name": "A", "qty": "10"}, {"id": 2, "name": "B", "qty": "20"}, {"id": 3, "name": "C", "qty": "30"}, {"id": 4, "name": "D", "qty": "40", "plan": "paid"}]"#.utf8)

    /// The migration: `qty` becomes an integer, and a field `plan` defaults to "free". `body`
    /// runs inside its write transaction, after its steps.
    static func migrator(_ body: @escaping @Sendable () -> Void = {}) -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration("v2") { tx in
            try tx.changeFieldType("qty", in: "Item", to: .integer)
            try tx.addField(FieldDescription("plan", .string, default: .string("free")), to: "Item")
            body()
        }
        return migrator
    }

    /// A store at `path` holding the seed records.
    static func seeded(_ dir: TemporaryDirectory) throws -> Store {
        let store = try Store(path: dir.path("store"))
        try store.importJSON(seed, entity: item)
        return store
    }

    /// What the store holds: the stored description, every record's bytes, the migrations run.
    static func snapshot(_ store: Store) throws -> [String] {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "Item"))
            var lines = ["description \(String(describing: try tx.entityDescription(named: "Item")))"]
            try tx.forEachStoredRecord(context) { key, bytes in lines.append("\(key.hex) \(bytes.hex)"); return true }
            lines.append("history \(try tx.migrationHistory().map(\.name))")
            #expect(try tx.verifyIndexes(entity: "Item").isConsistent)
            return lines
        }
    }

    /// The state after the migration then the import, and after the import then the migration.
    static func serialStates() throws -> (migrationFirst: [String], importFirst: [String]) {
        let first = try TemporaryDirectory("strata")
        let store = try seeded(first)
        try store.migrate(with: migrator())
        try store.importJSON(payload, storedEntity: "Item")
        let second = try TemporaryDirectory("strata")
        let other = try seeded(second)
        try other.importJSON(payload, storedEntity: "Item")
        try other.migrate(with: migrator())
        return (try snapshot(store), try snapshot(other))
    }

    @Test func anImportQueuedBehindAMigrationImportsIntoTheMigratedSchema() throws {
        let serial = try Self.serialStates()
        #expect(serial.migrationFirst != serial.importFirst)
        for _ in 0..<8 {
            let dir = try TemporaryDirectory("strata")
            let migrating = try Self.seeded(dir)
            let importing = try Store(path: dir.path("store"))
            let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let migration = Background { try migrating.migrate(with: Self.migrator { inside.signal(); release.wait() }) }
            inside.wait()
            // The migration's write transaction is open: the import's waits for it, whenever it starts.
            let importer = Background { try importing.importJSON(Self.payload, storedEntity: "Item") }
            release.signal()
            try migration.join()
            try importer.join()
            #expect(try Self.snapshot(importing) == serial.migrationFirst)
        }
    }

    @Test func aMigrationQueuedBehindAnImportMigratesWhatItImported() throws {
        let serial = try Self.serialStates()
        for _ in 0..<8 {
            let dir = try TemporaryDirectory("strata")
            let importing = try Self.seeded(dir)
            let migrating = try Store(path: dir.path("store"))
            let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let once = Once()
            var options = ImportOptions()
            // Progress is reported inside the import's write transaction: hold it open there.
            options.progress = { _ in if once.first() { inside.signal(); release.wait() } }
            let importer = Background { [options] in try importing.importJSON(Self.payload, storedEntity: "Item", options: options) }
            inside.wait()
            let migration = Background { try migrating.migrate(with: Self.migrator()) }
            release.signal()
            try importer.join()
            try migration.join()
            #expect(try Self.snapshot(migrating) == serial.importFirst)
        }
    }

    @Test func anEntityCreatedBeforeTheImportsWriteIsImportedAsStoredNotAsTheFallback() throws {
        let dir = try TemporaryDirectory("strata")
        let store = try Store(path: dir.path("store"))
        var fallback = Self.item
        fallback.fields[2] = FieldDescription("qty", .double)
        try store.importJSON(Self.seed, entity: Self.item)
        try store.importJSON(Self.payload, storedEntity: "Item", otherwise: fallback)
        #expect(try store.read { tx in try tx.entityDescription(named: "Item") }.field("qty")?.type == .string)
        let fresh = try Store(path: dir.path("other"))
        try fresh.importJSON(Self.payload, storedEntity: "Item", otherwise: fallback)
        #expect(try fresh.read { tx in try tx.entityDescription(named: "Item") }.field("qty")?.type == .double)
    }

    @Test func aStoredEntityKeyedByAnotherFieldOrMissingIsRefusedAndNothingIsWritten() throws {
        let dir = try TemporaryDirectory("strata")
        let store = try Self.seeded(dir)
        let before = try Self.snapshot(store)
        #expect { try store.importJSON(Self.payload, storedEntity: "Item", keyedBy: "name") } throws: { error in
            (error as? StrataError)?.code == .incompatibleStore && "\(error)".contains("stored with the primary key 'id', not 'name'")
        }
        #expect { try store.importJSON(Self.payload, storedEntity: "Other") } throws: { error in
            (error as? StrataError)?.code == .notFound
        }
        #expect(try Self.snapshot(store) == before)
    }
}

/// A closure run on a thread of its own; `join` waits for it and rethrows its error.
final class Background: @unchecked Sendable {
    // @unchecked Sendable: `error` is written by the thread before `done` is signalled and read after `join` waits for it.
    private var error: (any Error)?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [self] in
            do { try body() } catch { self.error = error }
            done.signal()
        }
    }

    func join() throws {
        done.wait()
        if let error { throw error }
    }
}

/// True the first time only, from any thread.
final class Once: @unchecked Sendable {
    // @unchecked Sendable: `used` is read and written only with `lock` held.
    private let lock = NSLock()
    private var used = false

    func first() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if used { return false }
        used = true
        return true
    }
}

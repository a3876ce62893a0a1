import Foundation
import Testing
import TestSupport
@testable import Strata

/// The versions of "Client" a store's history and its programs disagree about: version 1 stores
/// `fullName`, the migration "rename fullName" makes it `name` (version 2).
enum ClientV1 {
    struct Client: Record, Equatable {
        var id: Int64
        var fullName: String
        static let primaryKey = \Client.id
        static var entityName: String { "Client" }
        static let indexes: [IndexDefinition<Client>] = [.index(\.fullName)]
    }
}

enum ClientV2 {
    struct Client: Record, Equatable {
        var id: Int64
        var name: String
        static let primaryKey = \Client.id
        static var entityName: String { "Client" }
        static let indexes: [IndexDefinition<Client>] = [.index(\.name)]
    }

    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.registerMigration("rename fullName") { tx in try tx.renameField("fullName", to: "name", in: "Client") }
        return migrator
    }
}

/// A store whose migration history a program does not know refuses its writes through record
/// types, naming the migrations, instead of letting them change the stored schema; reads go on.
@Suite struct UnknownHistoryTests {
    let dir: TemporaryDirectory
    var path: String { dir.path("store") }

    /// A store of version 1 clients, migrated to version 2 by a program that knows the migration.
    init() throws {
        dir = try TemporaryDirectory("strata-history")
        let store = try Store(path: dir.path("store"))
        try store.write { tx in try tx.insert((1...3).map { ClientV1.Client(id: $0, fullName: "c\($0)") }) }
        try store.migrate(with: ClientV2.migrator)
    }

    /// The catalog entry of "Client", to see that a refused write changed nothing.
    func catalogEntry(_ store: Store) throws -> [UInt8] {
        try store.read { tx in try #require(try tx.context(named: "Client")).catalogBytes }
    }

    static func isRefusal(_ error: any Error, naming migration: String = "'rename fullName' (migration 1)") -> Bool {
        guard let error = error as? StrataError else { return false }
        return error.code == .migrationMismatch && error.entity == "Client" && error.message.contains(migration)
    }

    @Test func typedWritesThroughAStoreWithoutTheMigratorAreRefusedNamingTheMigrationAndChangeNothing() throws {
        let store = try Store(path: path)   // a program opened without its migrator, or an older one
        let before = try catalogEntry(store)
        #expect { try store.write { tx in try tx.upsert(ClientV1.Client(id: 4, fullName: "old")) } } throws: { Self.isRefusal($0) }
        #expect { try store.write { tx in try tx.upsert(ClientV2.Client(id: 4, name: "new")) } } throws: { Self.isRefusal($0) }
        #expect { try store.write { tx in try tx.update(ClientV2.Client(id: 1, name: "x")) } } throws: { Self.isRefusal($0) }
        #expect { try store.write { tx in try tx.delete(ClientV1.Client.self, key: 1) } } throws: { Self.isRefusal($0) }
        #expect { try store.write { tx in try tx.deleteAll(ClientV1.Client.self) } } throws: { Self.isRefusal($0) }
        #expect { try store.prepare(ClientV1.Client.self) } throws: { Self.isRefusal($0) }
        #expect { try store.importJSON(Data(#"[{"id": 5, "fullName": "json"}]"#.utf8), as: ClientV1.Client.self) } throws: { Self.isRefusal($0) }
        // A write that catches the refusal and tries again is refused again; nothing is created.
        try store.write { tx in
            for _ in 0..<2 {
                #expect { try tx.insert(ClientV1.Client(id: 6, fullName: "again")) } throws: { Self.isRefusal($0) }
            }
        }
        #expect(try catalogEntry(store) == before)
        #expect(try store.read { tx in try tx.context(named: "Client")?.schema.fields.id(for: "fullName") } == nil)

        // Reads of fields that still match go on.
        try store.read { tx throws in
            #expect(try tx.get(ClientV2.Client.self, key: 2) == ClientV2.Client(id: 2, name: "c2"))
            #expect(try tx.query(ClientV2.Client.self).where(\.name == "c3").count() == 1)
            #expect(try tx.count(ClientV2.Client.self) == 3)
        }
        // The documented migration, and anything after it, still runs on the unchanged schema.
        var next = ClientV2.migrator
        next.registerMigration("rename back") { tx in try tx.renameField("name", to: "fullName", in: "Client") }
        #expect(try store.migrate(with: next) == ["rename back"])
    }

    @Test func aStoreThatKnowsTheHistoryWritesThroughItsTypes() throws {
        var configuration = Store.Configuration()
        configuration.migrator = ClientV2.migrator
        let configured = try Store(path: path, configuration: configuration)
        try configured.write { tx in try tx.upsert(ClientV2.Client(id: 4, name: "new")) }
        // A Store that ran the migrator itself knows it too.
        let unconfigured = try Store(path: path)
        #expect { try unconfigured.write { tx in try tx.delete(ClientV2.Client.self, key: 4) } } throws: { Self.isRefusal($0) }
        #expect(try unconfigured.migrate(with: ClientV2.migrator) == [])
        #expect(try unconfigured.write { tx in try tx.delete(ClientV2.Client.self, key: 4) })
        try unconfigured.read { tx throws in #expect(try tx.verifyIndexes(entity: "Client").isConsistent) }
    }

    @Test func aMigrationRunAfterOpeningByAnotherStoreIsNamedAtTheNextWrite() throws {
        var configuration = Store.Configuration()
        configuration.migrator = ClientV2.migrator
        let older = try Store(path: path, configuration: configuration)
        try older.write { tx in try tx.upsert(ClientV2.Client(id: 4, name: "first")) }
        var newer = ClientV2.migrator
        newer.registerMigration("add tier") { tx in try tx.addField("tier", to: "Client", default: 1) }
        #expect(try Store(path: path).migrate(with: newer) == ["add tier"])
        #expect {
            try older.write { tx in try tx.upsert(ClientV2.Client(id: 4, name: "second")) }
        } throws: { error in
            Self.isRefusal(error, naming: "'add tier' (migration 2)") && "\(error)".contains("this Store knows 'rename fullName'")
        }
        #expect(try older.read { tx in try tx.get(ClientV2.Client.self, key: 4)?.name } == "first")
    }

    @Test func writesWithoutARecordTypeGoOn() throws {
        let store = try Store(path: path)
        // A JSON import by the stored description (what `strata import` does) and deletes by name.
        let description = try store.read { tx in try tx.entityDescription(named: "Client") }
        let report = try store.importJSON(Data(#"[{"id": 7, "name": "seven"}]"#.utf8), entity: description)
        #expect(report.inserted == 1)
        #expect(try store.write { tx in try tx.delete(entity: "Client", key: .int(7)) })
        #expect(try store.read { tx in try tx.count(ClientV2.Client.self) } == 3)
    }

    @Test func aStoreWithoutHistoryTakesTypedWritesWithoutAMigrator() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx in try tx.insert(ClientV1.Client(id: 1, fullName: "a")) }
        try store.write { tx in try tx.upsert(ClientV1.Client(id: 1, fullName: "b")) }
        #expect(try store.read { tx in try tx.get(ClientV1.Client.self, key: 1)?.fullName } == "b")
    }
}

import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Strata

/// The record type the migrator tests start from.
struct Account: Record, Equatable {
    var id: Int64
    var owner: String
    var balance: Int
    static let primaryKey = \Account.id
    static let indexes: [IndexDefinition<Account>] = [.index(\.owner)]
}

@Suite struct MigratorTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...6).map { Account(id: $0, owner: "o\($0)", balance: Int($0) * 10) }) }
    }

    /// Everything a migration can change, as stored: each record's bytes, every index's entries
    /// and the catalog's entries.
    func snapshot() throws -> [String] {
        try store.read { tx throws in
            var lines: [String] = []
            for name in try tx.entityNames() {
                let context = try #require(try tx.context(named: name))
                lines.append("entity \(name): \(String(decoding: context.catalogBytes, as: UTF8.self))")
                try tx.forEachStoredRecord(context) { key, bytes in lines.append("\(key.hex) \(bytes.hex)"); return true }
                for index in context.schema.indexes {
                    let database = try #require(context.indexes[index.name])
                    try tx.withIndexCursor(database, entity: name) { cursor in
                        var more = try cursor.first()
                        while more {
                            lines.append("\(index.name) \(cursor.key.hex) \(cursor.value.hex)")
                            more = try cursor.next()
                        }
                    }
                }
            }
            lines += try tx.migrationHistory().map { "\($0.order) \($0.name)" }
            return lines
        }
    }

    @Test func eachMigrationRunsOnceAndTheHistoryRecordsNameOrderAndDate() throws {
        let runs = Mutex(0)
        var migrator = Migrator()
        migrator.registerMigration("add bonus") { tx in
            runs.withLock { $0 += 1 }
            try tx.addField("bonus", to: "Account", default: 0)
        }
        migrator.registerMigration("owners upper-cased") { tx in
            try tx.transformRecords(of: "Account") { record in
                guard case .string(let owner)? = record["owner"] else { return }
                record.fields = record.fields.map { $0.key == "owner" ? JSONMember(key: "owner", value: .string(owner.uppercased())) : $0 }
            }
        }
        let before = Date().addingTimeInterval(-1)
        #expect(try store.migrate(with: migrator) == ["add bonus", "owners upper-cased"])
        let history = try store.migrationHistory()
        #expect(history.map(\.name) == ["add bonus", "owners upper-cased"])
        #expect(history.map(\.order) == [1, 2])
        #expect(history.allSatisfy { $0.date >= before && $0.date <= Date() })
        #expect(try store.read { tx in try tx.get(Account.self, key: 3)?.owner } == "O3")

        // A second run does nothing: no migration body runs, no byte changes.
        let after = try snapshot()
        #expect(try store.migrate(with: migrator) == [])
        #expect(runs.withLock { $0 } == 1)
        #expect(try snapshot() == after)

        // A migration appended later runs alone.
        migrator.registerMigration("drop bonus") { tx in try tx.removeField("bonus", from: "Account") }
        #expect(try store.migrate(with: migrator) == ["drop bonus"])
        #expect(try store.migrationHistory().map(\.order) == [1, 2, 3])
    }

    @Test func aFailedMigrationRollsBackRecordsIndexesAndCatalogAndNamesTheMigrationAndTheRecord() throws {
        var migrator = Migrator()
        migrator.registerMigration("rename owner") { tx in try tx.renameField("owner", to: "holder", in: "Account") }
        migrator.registerMigration("index balance") { tx in
            try tx.addIndex(IndexDescription(fields: ["balance"]), toEntity: "Account")
        }
        migrator.registerMigration("backfill tier") { tx in
            try tx.addField("tier", to: "Account", backfill: { record -> String in
                guard record.key != .int(4) else { throw StrataError(.invalidValue, "no tier for this one") }
                return "gold"
            })
        }
        let before = try snapshot()
        #expect {
            try store.migrate(with: migrator)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .migrationFailed && error.entity == "Account" && error.key == "4"
                && error.message.contains("'backfill tier'") && error.message.contains("Account 4")
        }
        #expect(try snapshot() == before)
        #expect(try store.migrationHistory().isEmpty)
        try store.read { tx throws in
            #expect(try tx.query(Account.self).where("owner == 'o2'").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Account").isConsistent)
        }
    }

    @Test func aStoreWhoseHistoryIsNotAPrefixIsRefusedAndLeftAlone() throws {
        var first = Migrator()
        first.registerMigration("a") { tx in try tx.addField("x", to: "Account", default: 1) }
        first.registerMigration("b") { tx in try tx.addField("y", to: "Account", default: 2) }
        try store.migrate(with: first)
        let migrated = try snapshot()

        var older = Migrator()   // an older program knows only "a"
        older.registerMigration("a") { tx in try tx.addField("x", to: "Account", default: 1) }
        var renamed = Migrator()   // names differ
        renamed.registerMigration("a") { tx in try tx.addField("x", to: "Account", default: 1) }
        renamed.registerMigration("b2") { tx in try tx.addField("y", to: "Account", default: 2) }
        for migrator in [older, renamed] {
            #expect { try store.migrate(with: migrator) } throws: { ($0 as? StrataError)?.code == .migrationMismatch }
        }
        #expect(try snapshot() == migrated)

        // The option on the configuration refuses to open it too.
        let path = store.path
        var configuration = Store.Configuration()
        configuration.migrator = renamed
        #expect { _ = try Store(path: path, configuration: configuration) } throws: { ($0 as? StrataError)?.code == .migrationMismatch }
    }

    @Test func theConfigurationRunsTheMigratorAtOpening() throws {
        var migrator = Migrator()
        migrator.registerMigration("add note") { tx in try tx.addField("note", to: "Account", default: "none") }
        var configuration = Store.Configuration()
        configuration.migrator = migrator
        let reopened = try Store(path: store.path, configuration: configuration)
        #expect(try reopened.migrationHistory().map(\.name) == ["add note"])
        #expect(try reopened.read { tx in try tx.record(entity: "Account", key: .int(1))?["note"] } == .string("none"))
    }

    @Test func repeatedOrEmptyNamesAreInvalid() throws {
        var migrator = Migrator()
        migrator.registerMigration("a") { _ in }
        migrator.registerMigration("a") { _ in }
        #expect { try store.migrate(with: migrator) } throws: { ($0 as? StrataError)?.code == .invalidValue }
        #expect(try store.migrationHistory().isEmpty)
    }
}

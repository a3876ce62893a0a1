import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A record that takes the name `User` after the first `User` was renamed away.
private struct NewUser: Record, Equatable {
    static let entityName = "User"
    var code: String
    var label: String
    static let primaryKey = \NewUser.code
}

/// Migrations replay on a replica: after any plan (entity and field renames, a renamed entity
/// whose old name is taken again in the same or a later commit, type and index changes), the
/// replica holds what the primary holds: the same entities under the same names, the same field
/// tables and indexes, the same records byte for byte, and indexes that verify.
@Suite struct ReplicatedMigrationTests {
    let dir: TemporaryDirectory
    let primary: Store
    let replica: Store

    init() throws {
        (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        try primary.write { tx in try tx.insert((1...40).map { User.sample($0, "First \($0)", "Last \($0 % 7)") }) }
        replica = try Store(path: dir.path("replica"))
    }

    /// Every entity with its schema (name, key, records database, field table, indexes) and its
    /// records, in key order.
    func contents(_ store: Store) throws -> [String] {
        try store.read { tx in
            try tx.catalogEntityNames().sorted().flatMap { entity in
                let context = try #require(try tx.context(named: entity))
                let schema = context.schema
                let fields = schema.fields.names.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                let indexes = schema.indexes.map { "\($0.name)(\($0.fields.map(\.description).joined(separator: ",")))" }.sorted()
                var rows = ["\(entity) key \(schema.primaryKey) in \(schema.recordsDatabase) fields \(fields) indexes \(indexes)"]
                try tx.raw.withCursor(context.records) { cursor in
                    var more = try cursor.first()
                    while more { rows.append("\(entity) \(cursor.key) \(cursor.value)"); more = try cursor.next() }
                }
                return rows
            }
        }
    }

    /// Replicates, then checks that the replica equals the primary and its indexes verify.
    func expectReplicaEqualsPrimary(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try replica.replicate(from: primary)
        let expected = try contents(primary)
        let found = try contents(replica)
        let extra = found.filter { !expected.contains($0) }.prefix(3).map { $0.prefix(160) }
        let missing = expected.filter { !found.contains($0) }.prefix(3).map { $0.prefix(160) }
        #expect(found == expected, "the replica has \(extra), lacks \(missing)", sourceLocation: sourceLocation)
        try replica.read { tx throws in
            for entity in try tx.catalogEntityNames() {
                #expect(try tx.verifyIndexes(entity: entity).problems.isEmpty, "\(entity)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aRenamedEntityArrivesUnderItsNewNameInOneReplicate() throws {
        try primary.write { tx in try tx.renameEntity("User", to: "Member") }
        try expectReplicaEqualsPrimary()
        #expect(try replica.read { tx in try tx.catalogEntityNames() } == ["Member"])
    }

    @Test func aRenamedEntitysOldNameTakenAgainInTheSameCommit() throws {
        try replica.replicate(from: primary)
        try primary.write { tx in
            try tx.renameEntity("User", to: "Member")
            try tx.insert(NewUser(code: "a", label: "new user a"))
        }
        try expectReplicaEqualsPrimary()
        try replica.read { tx throws in
            #expect(try tx.query(NewUser.self).all().map(\.code) == ["a"])
            #expect(try tx.count(entity: "Member") == 40)
        }
        // The same again with the replica behind: both commits in one replicate.
        let late = try Store(path: dir.path("late"))
        try primary.write { tx in try tx.upsert(NewUser(code: "b", label: "new user b")) }
        try late.replicate(from: primary)
        #expect(try contents(late) == contents(primary))
    }

    @Test func aRenamedEntitysOldNameTakenAgainInTheNextCommit() throws {
        try primary.write { tx in try tx.renameEntity("User", to: "Member") }
        try primary.write { tx in try tx.insert(NewUser(code: "a", label: "new user a")) }
        try primary.write { tx in try tx.renameEntity("Member", to: "Former") }
        try expectReplicaEqualsPrimary()
        #expect(try replica.read { tx in try tx.catalogEntityNames().sorted() } == ["Former", "User"])
    }

    @Test func twoEntitiesSwapTheirNamesInOneCommit() throws {
        try primary.write { tx in try tx.insert([Tag(name: "x", uses: 1), Tag(name: "y", uses: 2)]) }
        try replica.replicate(from: primary)
        try primary.write { tx in
            try tx.renameEntity("User", to: "Swap")
            try tx.renameEntity("Tag", to: "User")
            try tx.renameEntity("Swap", to: "Tag")
        }
        try expectReplicaEqualsPrimary()
        try replica.read { tx throws in
            #expect(try tx.count(entity: "Tag") == 40)
            #expect(try tx.count(entity: "User") == 2)
        }
    }

    @Test func fieldRenamesTypeChangesAndIndexChangesReplay() throws {
        try primary.write { tx in try tx.addIndex(IndexDescription(fields: ["lastName"]), toEntity: "User") }
        try replica.replicate(from: primary)
        try primary.write { tx in
            try tx.renameField("lastName", to: "surname", in: "User")
            try tx.changeFieldType("luckyNumber", in: "User", to: .string)
            try tx.addIndex(IndexDescription(fields: ["firstName"], collation: .caseAndDiacriticInsensitive), toEntity: "User")
        }
        try expectReplicaEqualsPrimary()
        try primary.write { tx in
            try tx.dropIndex(named: "surname", fromEntity: "User")
            try tx.removeField("firstName", from: "User")
            try tx.addField("status", to: "User", default: "active")
        }
        try primary.write { tx in try tx.compactRecords(of: "User") }
        try expectReplicaEqualsPrimary()
        try replica.read { tx throws in
            #expect(try tx.query(entity: "User").where("status == 'active'").count() == 40)
        }
    }

    @Test func aPlanOfSeveralMigrationsReplaysOnACaughtUpReplica() throws {
        try replica.replicate(from: primary)
        let plan = try MigrationPlan(json: Data("""
        {"migrations": [
          {"name": "one", "steps": [{"op": "renameEntity", "entity": "User", "to": "Member"},
                                    {"op": "renameField", "entity": "Member", "field": "lastName", "to": "surname"}]},
          {"name": "two", "steps": [{"op": "addIndex", "entity": "Member", "fields": ["surname"]},
                                    {"op": "changeType", "entity": "Member", "field": "luckyNumber", "type": "double"}]}
        ]}
        """.utf8))
        _ = try primary.migrate(with: plan.migrator)
        try primary.write { tx in try tx.insert(NewUser(code: "after", label: "the old name again")) }
        try expectReplicaEqualsPrimary()
    }
}

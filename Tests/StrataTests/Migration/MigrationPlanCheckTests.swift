import Foundation
import Testing
import TestSupport
@testable import Strata

/// Migration plans that would break the store are refused before anything is written: names
/// that are not field names, defaults that do not fit, required fields that stored records would
/// lack; and a dry run reports every refusal at once.
@Suite struct MigrationPlanCheckTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        let user = EntityDescription(name: "User", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("name", .string), FieldDescription("age", .integer),
        ])
        try store.importJSON(Data(#"[{"id": 1, "name": "Ada", "age": 36}, {"id": 2, "name": "Bob", "age": 40}]"#.utf8), entity: user)
    }

    /// A plan of one migration `name` (JSON string text) doing `steps` (JSON objects).
    static func plan(_ steps: String, name: String = "v2") throws -> MigrationPlan {
        try MigrationPlan(json: Data(#"{"migrations": [{"name": "\#(name)", "steps": [\#(steps)]}]}"#.utf8))
    }

    /// The stored records and catalog, to see that a refused plan changed nothing.
    func snapshot() throws -> [String] {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "User"))
            var lines = [String(decoding: context.catalogBytes, as: UTF8.self), "\(try tx.migrationHistory().map(\.name))"]
            try tx.forEachStoredRecord(context) { key, bytes in lines.append("\(key.hex) \(bytes.hex)"); return true }
            return lines
        }
    }

    func expectRefused(_ steps: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try snapshot()
        let plan = try Self.plan(steps)
        #expect(sourceLocation: sourceLocation) { try store.migrate(with: plan.migrator) } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .migrationFailed && error.message.contains(message)
        }
        #expect(try snapshot() == before, sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        (#"{"op": "renameField", "entity": "User", "field": "name", "to": "a.b"}"#, "has a '.'"),
        (#"{"op": "renameField", "entity": "User", "field": "name", "to": "a\u001Bb"}"#, "control character U+001B"),
        (#"{"op": "renameField", "entity": "User", "field": "name", "to": "bell\u0007"}"#, "control character U+0007"),
        (#"{"op": "renameField", "entity": "User", "field": "name", "to": "two\nlines"}"#, "control character U+000A"),
        (#"{"op": "addField", "entity": "User", "field": "x.y", "type": "string", "default": "z"}"#, "has a '.'"),
        (#"{"op": "renameEntity", "entity": "User", "to": "Us\u001Ber"}"#, "control character U+001B"),
    ])
    func aNameThatIsNotAFieldOrEntityNameIsRefused(step: String, message: String) throws {
        try expectRefused(step, message)
    }

    @Test func aBackfilledFieldTakesTheSameNameRule() throws {
        #expect { try store.write { tx in try tx.addField("a.b", to: "User") { _ in "x" } } } throws: { error in
            (error as? StrataError)?.code == .invalidValue && "\(error)".contains("has a '.'")
        }
    }

    @Test func aMigrationNameWithAControlCharacterIsRefused() throws {
        let plan = try Self.plan(#"{"op": "compact", "entity": "User"}"#, name: #"v2\u001B[2J"#)
        #expect { try store.migrate(with: plan.migrator) } throws: { error in
            (error as? StrataError)?.code == .invalidValue && "\(error)".contains("U+001B")
        }
        #expect(try store.migrationHistory().isEmpty)
    }

    @Test func aDefaultLargerThanTheLimitIsRefusedAndOneAtTheLimitIsStored() throws {
        let large = String(repeating: "x", count: EntityDescription.maximumDefaultSize)
        try expectRefused(#"{"op": "addField", "entity": "User", "field": "blob", "type": "string", "default": "\#(large)"}"#,
                          "a default can take at most \(EntityDescription.maximumDefaultSize)")
        // A typed default takes the same way in, and the same limit.
        #expect { try store.write { tx in try tx.addField("blob", to: "User", default: large) } } throws: { error in
            (error as? StrataError)?.code == .invalidValue && "\(error)".contains("at most \(EntityDescription.maximumDefaultSize)")
        }
        let fits = String(repeating: "x", count: EntityDescription.maximumDefaultSize - 3)   // a 3-byte CBOR head
        try store.migrate(with: try Self.plan(#"{"op": "addField", "entity": "User", "field": "blob", "type": "string", "default": "\#(fits)"}"#).migrator)
        #expect(try store.read { tx in try tx.query(entity: "User").all().map { $0["blob"] } } == [.string(fits), .string(fits)])
    }

    @Test func anIntegerDefaultOutsideTheIntegersAFieldCanHoldIsRefused() throws {
        // An integer field holds Int128.min through UInt128.max (``WideInteger``).
        try expectRefused(#"{"op": "addField", "entity": "User", "field": "n", "type": "int", "default": 340282366920938463463374607431768211456}"#,
                          "out of range for an integer")
        try expectRefused(#"{"op": "addField", "entity": "User", "field": "n", "type": "int", "default": -170141183460469231731687303715884105729}"#,
                          "out of range for an integer")
        try store.migrate(with: try Self.plan(#"{"op": "addField", "entity": "User", "field": "n", "type": "int", "default": 170141183460469231731687303715884105728}"#).migrator)
        #expect(try store.read { tx in try tx.query(entity: "User").all().map { $0["n"] } } == [JSONValue?](repeating: .wideInt(WideInteger(UInt128(1) << 127)), count: 2))
    }

    @Test func aRequiredFieldWithoutADefaultIsRefusedOnAnEntityWithRecords() throws {
        try expectRefused(#"{"op": "addField", "entity": "User", "field": "plan", "type": "string"}"#,
                          "the required field 'plan' has no default, and the 2 stored records would lack it")
        // Optional, or with a default, it is added.
        try store.migrate(with: try Self.plan(#"{"op": "addField", "entity": "User", "field": "plan", "type": "string", "optional": true}"#).migrator)
        // On an entity without records, a required field needs no default.
        try store.importJSON(Data("[]".utf8), entity: EntityDescription(name: "Empty", primaryKey: "id", fields: [FieldDescription("id", .integer)]))
        var migrator = try Self.plan(#"{"op": "addField", "entity": "User", "field": "plan", "type": "string", "optional": true}"#).migrator
        migrator.registerMigration("v3") { tx in try tx.addField(FieldDescription("tier", .string), to: "Empty") }
        try store.migrate(with: migrator)
        #expect(try store.migrationHistory().map(\.name) == ["v2", "v3"])
    }

    @Test func aDryRunReportsEveryRefusalAtOnceAndChangesNothing() throws {
        let before = try snapshot()
        let large = String(repeating: "x", count: 4_000)
        let plan = try Self.plan("""
            {"op": "renameField", "entity": "User", "field": "name", "to": "a.b"},
            {"op": "addField", "entity": "User", "field": "plan", "type": "string", "default": "free"},
            {"op": "addField", "entity": "User", "field": "blob", "type": "string", "default": "\(large)"},
            {"op": "addField", "entity": "User", "field": "tier", "type": "string"},
            {"op": "removeField", "entity": "User", "field": "nothing"}
            """)
        #expect { try store.migrate(with: plan.migrator, dryRun: true) } throws: { error in
            guard let error = error as? StrataError, error.code == .migrationFailed else { return false }
            let lines = error.message.split(separator: "\n")
            return error.message.hasPrefix("the dry run was refused 4 times") && lines.count == 5
                && lines[1].contains("step 1 (rename field User.name to a.b)") && lines[2].contains("step 3")
                && lines[2].contains("takes 4003 bytes stored") && lines[3].contains("step 4") && lines[4].contains("step 5")
                && lines[4].contains("'nothing'")
        }
        #expect(try snapshot() == before)
        // Migrators of closures: each migration that throws is a refusal.
        var migrator = Migrator()
        migrator.registerMigration("a") { tx in try tx.renameField("name", to: "x.y", in: "User") }
        migrator.registerMigration("b") { tx in try tx.renameField("age", to: "years", in: "User") }
        migrator.registerMigration("c") { tx in try tx.removeField("nothing", from: "User") }
        #expect { try store.migrate(with: migrator, dryRun: true) } throws: { error in
            let message = (error as? StrataError)?.message ?? ""
            return message.hasPrefix("the dry run was refused 2 times") && message.contains("migration 'a'") && message.contains("migration 'c'")
                && !message.contains("migration 'b'")
        }
        #expect(try snapshot() == before)
        // A dry run without refusals reports what it would run, and changes nothing either.
        #expect(try store.migrate(with: try Self.plan(#"{"op": "renameField", "entity": "User", "field": "name", "to": "fullName"}"#).migrator, dryRun: true) == ["v2"])
        #expect(try snapshot() == before)
    }
}

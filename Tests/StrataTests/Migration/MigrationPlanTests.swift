import Foundation
import Testing
@testable import Strata

/// A migration plan's `addField` and `addIndex` steps read their field and index as a schema file
/// reads them: every key a schema file takes, and the same refusals.
@Suite struct MigrationPlanTests {
    static func plan(_ step: String) throws -> MigrationPlan {
        try MigrationPlan(json: Data(#"{"migrations": [{"name": "v2", "steps": [\#(step)]}]}"#.utf8))
    }

    @Test func anAddedFieldTakesEveryKeyOfASchemaFilesField() throws {
        let plan = try Self.plan(#"{"op": "addField", "entity": "User", "field": "plan", "type": "string", "json": "plan_name", "default": "free"}"#)
        #expect(plan.migrations.first?.steps == [.addField(entity: "User", field: FieldDescription("plan", .string, jsonKey: "plan_name", default: .string("free")))])
    }

    @Test func aRenamedFieldTakesANewJSONKeyOrKeepsItsOwn() throws {
        let renamed = try Self.plan(#"{"op": "renameField", "entity": "User", "field": "nick", "to": "nickname", "json": "nick_name"}"#)
        #expect(renamed.migrations.first?.steps == [.renameField(entity: "User", field: "nick", to: "nickname", jsonKey: "nick_name")])
        #expect(renamed.migrations.first?.steps.first?.description == "rename field User.nick to nickname (JSON key 'nick_name')")
        let kept = try Self.plan(#"{"op": "renameField", "entity": "User", "field": "nick", "to": "nickname"}"#)
        #expect(kept.migrations.first?.steps == [.renameField(entity: "User", field: "nick", to: "nickname")])
    }

    @Test(arguments: [
        (#"{"op": "addField", "entity": "User", "field": "plan", "type": "string", "optional": "yes"}"#, "\"optional\" must be true or false"),
        (#"{"op": "addField", "entity": "User", "field": "at", "type": "date", "dateFormat": "someday"}"#, "\"dateFormat\" must be one of"),
        (#"{"op": "addIndex", "entity": "User", "fields": ["age"], "collation": "klingon"}"#, "collation is binary, caseInsensitive or caseDiacriticInsensitive"),
        (#"{"op": "addIndex", "entity": "User", "fields": ["age"], "unique": "yes"}"#, "\"unique\" must be true or false"),
    ])
    func aStepASchemaFileWouldRefuseIsRefusedNamingTheMigrationAndStep(step: String, message: String) {
        #expect {
            _ = try Self.plan(step)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidValue && error.message.contains("the migration 'v2', step 1") && error.message.contains(message)
        }
    }
}

import Foundation
import Testing
import TestSupport
@testable import Strata

// The worked example of migrations: three versions of a program's `User` type.

/// Version 1.
enum UserV1 {
    struct User: Record, Equatable {
        var id: Int64
        var fullName: String
        var age: String
        static let primaryKey = \User.id
        static let indexes: [IndexDefinition<User>] = [.index(\.fullName)]
    }
}

/// Version 2: `fullName` is renamed `name`.
enum UserV2 {
    struct User: Record, Equatable {
        var id: Int64
        var name: String
        var age: String
        static let primaryKey = \User.id
        static let indexes: [IndexDefinition<User>] = [.index(\.name)]
    }
}

/// Version 3: a new non-optional field with a default, and `age` becomes an integer, indexed.
enum UserV3 {
    struct User: Record, Equatable {
        var id: Int64
        var name: String
        var age: Int
        var plan: String
        static let primaryKey = \User.id
        static let indexes: [IndexDefinition<User>] = [.index(\.name), .index(\.age)]
        static let defaults: [FieldDefault<User>] = [FieldDefault(\.plan, "free")]
    }

    /// Every migration the program has ever shipped, in order.
    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.registerMigration("v2: rename fullName to name") { tx in
            try tx.renameField("fullName", to: "name", in: "User")
        }
        migrator.registerMigration("v3: age becomes an integer") { tx in
            try tx.convertField("age", in: "User", from: String.self) { Int($0) ?? 0 }
        }
        return migrator
    }
}

@Suite struct WorkedExampleTests {
    @Test func aUserStoreGoesFromVersion1ToVersion3() throws {
        let dir = try TemporaryDirectory("strata")
        let path = dir.path("store")
        do {
            let store = try Store(path: path)
            try store.write { tx in
                try tx.insert([UserV1.User(id: 1, fullName: "Ada Lovelace", age: "36"),
                               UserV1.User(id: 2, fullName: "Grace Hopper", age: "85")])
            }
            // Version 3 cannot read version 1's records yet.
            #expect(throws: StrataError.self) { try store.read { tx in try tx.get(UserV3.User.self, key: 1) } }
        }

        var configuration = Store.Configuration()
        configuration.migrator = UserV3.migrator
        let store = try Store(path: path, configuration: configuration)
        try store.prepare(UserV3.User.self)
        try store.write { tx in try tx.insert(UserV3.User(id: 3, name: "Alan Turing", age: 41, plan: "pro")) }

        try store.read { tx throws in
            #expect(try tx.get(UserV3.User.self, key: 1) == UserV3.User(id: 1, name: "Ada Lovelace", age: 36, plan: "free"))
            #expect(try tx.query(UserV3.User.self).where(\.age > 40).all().map(\.id) == [2, 3])
            #expect(try tx.query(UserV3.User.self).where(\.plan == "free").count() == 2)
            #expect(try tx.query(UserV3.User.self).where(\.name == "Grace Hopper").first()?.age == 85)
            #expect(try tx.verifyIndexes(entity: "User").isConsistent)
        }
        #expect(try store.migrationHistory().map(\.name) == ["v2: rename fullName to name", "v3: age becomes an integer"])
        // Opening again runs nothing.
        #expect(try store.migrate(with: UserV3.migrator) == [])
    }
}

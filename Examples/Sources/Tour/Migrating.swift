import Foundation
import Strata

/// The Migrations article's worked example: a `User` type from version 1 to version 3.
enum Version1 {
    // snippet: migrations-v1
    struct User: Record {
        var id: Int64
        var fullName: String
        var age: String                        // stored as text in version 1
        static let primaryKey = \User.id
        static let indexes: [IndexDefinition<User>] = [.index(\.fullName)]
    }
    // end snippet: migrations-v1
}

enum Version3 {
    // snippet: migrations-v3
    struct User: Record {
        var id: Int64
        var name: String                       // version 2: renamed from fullName
        var age: Int                           // version 3: an integer
        var plan: String                       // version 3: new, not optional
        static let primaryKey = \User.id
        static let indexes: [IndexDefinition<User>] = [.index(\.name), .index(\.age)]
        static let defaults: [FieldDefault<User>] = [FieldDefault(\.plan, "free")]
    }

    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.registerMigration("v2: rename fullName") { tx in
            try tx.renameField("fullName", to: "name", in: "User")
        }
        migrator.registerMigration("v3: age as an integer") { tx in
            try tx.convertField("age", in: "User", from: String.self) { Int($0) ?? 0 }
        }
        return migrator
    }
    // end snippet: migrations-v3
}

func migrating() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migrations-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Store(path: path).write { tx in
        try tx.insert(Version1.User(id: 1, fullName: "Ada Lovelace", age: "36"))
    }
    // snippet: migrations-run
    var configuration = Store.Configuration()
    configuration.migrator = Version3.migrator         // runs what this store has not run, at opening
    let store = try Store(path: path, configuration: configuration)
    try store.read { tx in
        let ada = try tx.get(Version3.User.self, key: 1)   // name "Ada Lovelace", age 36, plan "free"
        let over30 = try tx.query(Version3.User.self).where(\.age > 30).count()
        print(ada?.plan ?? "", over30)
    }
    for migration in try store.migrationHistory() { print(migration.order, migration.name, migration.date) }
    // end snippet: migrations-run
    // What the comments say holds.
    let ada = try store.read { tx in try tx.get(Version3.User.self, key: 1) }
    guard ada?.name == "Ada Lovelace", ada?.age == 36, ada?.plan == "free",
          try store.migrationHistory().map(\.name) == Version3.migrator.names else {
        fatalError("the Migrations article's worked example does not do what it says: \(String(describing: ada))")
    }
}

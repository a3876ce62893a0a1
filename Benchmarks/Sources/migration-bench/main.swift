// Schema migrations timed on N users with 3 indexes (default 1,000,000), each a Migrator run with its commit:
// `swift run -c release --package-path Benchmarks migration-bench [--count N]`. Prints a Markdown table
// and the machine's load during the run.
import EngineComparison
import Foundation
import Strata

struct BenchUser: Record {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var city: String
    var score: Double
    var luckyNumber: Int
    static let primaryKey = \BenchUser.id
    static let indexes: [IndexDefinition<BenchUser>] = [.index(\.lastName), .index(\.city), .index(\.luckyNumber)]
}

var count = 1_000_000
var arguments = BenchmarkArguments(tool: "migration-bench")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--help", "-h":
        print("usage: migration-bench [--count N (1000000)]")
        exit(0)
    default: arguments.unknown(flag)
    }
}
#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif
let conditions = RunConditions()
let dir = NSTemporaryDirectory() + "migbench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: dir) }
let store = try Store(path: dir)
let cities = ["Berlin", "Paris", "Rome", "Oslo", "Lima", "Kyiv", "Quito", "Accra"]
try store.write(durability: .deferred) { tx in
    try tx.insert((1...count).lazy.map { id in
        BenchUser(id: Int64(id), firstName: "f\(id % 1000)", lastName: "l\(id % 5000)", email: "u\(id)@example.com",
                  city: cities[id % cities.count], score: Double(id % 100_000) / 100, luckyNumber: id % 100)
    })
}
try store.flush()

func measure(_ label: String, records: Int, _ body: () throws -> Void) rethrows {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = records > 0 ? String(format: "%.0f records/s", Double(records) / seconds) : ""
    print(String(format: "| %@ | %.1f ms | %@ |", label, seconds * 1000, rate))
}

print("| operation (\(count) users, 3 indexes) | time | rate |")
print("| --- | --- | --- |")
var migrator = Migrator()
migrator.registerMigration("rename field") { tx in try tx.renameField("firstName", to: "givenName", in: "BenchUser") }
try measure("field rename (migration, commit included)", records: 0) { try store.migrate(with: migrator) }
migrator.registerMigration("rename entity") { tx in try tx.renameEntity("BenchUser", to: "Person") }
try measure("entity rename (migration, commit included)", records: 0) { try store.migrate(with: migrator) }
migrator.registerMigration("add field with default") { tx in try tx.addField("plan", to: "Person", default: "free") }
try measure("backfill: add a field with a default", records: count) { try store.migrate(with: migrator) }
migrator.registerMigration("backfill closure") { tx in
    try tx.addField("domain", to: "Person") { record -> String in
        guard case .string(let email)? = record["email"] else { return "" }
        return String(email.split(separator: "@").last ?? "")
    }
}
try measure("backfill: a field computed from each record", records: count) { try store.migrate(with: migrator) }
migrator.registerMigration("transform") { tx in
    try tx.convertField("score", in: "Person", from: Double.self) { Int($0 * 100) }
}
try measure("transform: convert an unindexed field (Double to Int)", records: count) { try store.migrate(with: migrator) }
migrator.registerMigration("type change indexed") { tx in try tx.changeFieldType("luckyNumber", in: "Person", to: .string) }
try measure("type change of an indexed field, index rebuilt", records: count) { try store.migrate(with: migrator) }
migrator.registerMigration("transform untyped") { tx in
    try tx.transformRecords(of: "Person") { record in
        if let index = record.fields.firstIndex(where: { $0.key == "email" }), case .string(let email) = record.fields[index].value {
            record.fields[index].value = .string(email.uppercased())
        }
    }
}
try measure("transform: every record, an unindexed field, untyped (`transformRecords(of:)`)", records: count) { try store.migrate(with: migrator) }
/// The records as the migrations above left them, read and written typed.
struct Person: Record {
    var id: Int64
    var givenName: String
    var lastName: String
    var email: String
    var city: String
    var score: Int
    var luckyNumber: String
    var plan: String
    var domain: String
    static let primaryKey = \Person.id
}
migrator.registerMigration("transform typed") { tx in
    try tx.transformRecords(from: Person.self, to: Person.self) { person in
        var person = person
        person.email = person.email.lowercased()
        return person
    }
}
try measure("transform: every record, an unindexed field, typed (`transformRecords(from:to:)`)", records: count) { try store.migrate(with: migrator) }
print(conditions.summary())

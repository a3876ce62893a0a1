// The main job until the `strata` command-line tool exists: a small tour of the store.
//
//   swift run -c release strata-demo [--records N] [--store PATH]
//
// Generates N users, writes them in one transaction, reads some back by key, scans them all,
// shows a rollback, imports a JSON payload of them (upsert, then a sync of one page), and prints
// timings. Without --store it works in a temporary directory.
import Foundation
import Strata

struct User: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var luckyNumber: Int?
    var createdDate: Date
    static let primaryKey = \User.id
}

/// The same users as a REST API sends them, imported by convention (`first_name` → `firstName`,
/// `created_at` → `createdDate`, `id` → `remoteID`).
struct Member: Record, Equatable {
    var remoteID: Int64
    var firstName: String
    var lastName: String
    var luckyNumber: Int?
    var createdDate: Date
    static let primaryKey = \Member.remoteID
    static let indexes: [IndexDefinition<Member>] = [.index(\.lastName, collation: .caseAndDiacriticInsensitive), .index(\.luckyNumber)]
}

struct DemoError: Error, CustomStringConvertible { var description: String }

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func measure<T>(_ label: String, count: Int, _ body: () throws -> T) rethrows -> T {
    let start = ContinuousClock.now
    let result = try body()
    let seconds = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
        + Double((ContinuousClock.now - start).components.seconds)
    let rate = seconds > 0 ? Int(Double(count) / seconds) : 0
    print("  \(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%8.3f", seconds)) s  \(rate.formatted()) records/s")
    return result
}

do {
    let count = Int(option("--records") ?? "100000") ?? 100_000
    guard count > 0 else { throw DemoError(description: "--records must be positive") }
    let path = option("--store") ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-demo-\(UUID().uuidString)").path
    let temporary = option("--store") == nil
    defer { if temporary { try? FileManager.default.removeItem(atPath: path) } }

    print("Strata demo: \(count.formatted()) users in \(path)")
    let store = try Store(path: path)
    let firstNames = ["Jimmy", "Doogie", "George", "Michael", "Lindsay", "Tobias", "Lucille", "Gob", "Buster", "Maeby"]
    let lastNames = ["James", "Howser", "Bluth", "Fünke", "Austero", "Sitwell", "Zuckerkorn", "Veal"]
    var generator = SystemRandomNumberGenerator()
    var users: [User] = []
    users.reserveCapacity(count)
    for i in 1...count {
        let lucky: Int? = i % 5 == 0 ? nil : i % 100
        let created = Date(timeIntervalSince1970: 1_600_000_000 + Double(i))
        users.append(User(id: Int64(i), firstName: firstNames[i % firstNames.count],
                          lastName: lastNames[(i / 7) % lastNames.count], luckyNumber: lucky, createdDate: created))
    }

    try measure("upsert in one write transaction", count: count) {
        try store.write { tx in try tx.upsert(users) }
    }
    let keys = (0..<count).map { _ in Int64.random(in: 1...Int64(count), using: &generator) }
    let found = try measure("point reads by key (random order)", count: count) {
        try store.read { tx in try keys.reduce(0) { total, key in total + (try tx.get(User.self, key: key) == nil ? 0 : 1) } }
    }
    let batched = try measure("point reads, batched get(keys:)", count: count) {
        try store.read { tx in try tx.get(User.self, keys: keys).count }
    }
    precondition(batched == found, "batched reads found \(batched), single reads \(found)")
    let scanned = try measure("full scan, decoding every record", count: count) {
        try store.read { tx in
            var n = 0
            try tx.forEach(User.self) { _ in n += 1 }
            return n
        }
    }
    let (first, last, total) = try store.read { tx in (try tx.first(User.self), try tx.last(User.self), try tx.count(User.self)) }
    print("  found \(found) of \(keys.count) keys; scanned \(scanned); count \(total)")
    print("  first: \(first.map { "\($0.id) \($0.firstName) \($0.lastName)" } ?? "-"), last: \(last.map { "\($0.id) \($0.firstName) \($0.lastName)" } ?? "-")")

    struct Rollback: Error {}
    do {
        try store.write { tx in
            try tx.delete(User.self, key: 1)
            throw Rollback()
        }
    } catch is Rollback {
        let stillThere = try store.read { tx in try tx.exists(User.self, key: 1) }
        print("  a write that throws rolls back: user 1 still there = \(stillThere)")
    }
    do {
        try store.write { tx in try tx.insert(users[0]) }
    } catch let error as StrataError {
        print("  inserting an existing key: \(error.code) — \(error.message)")
    }

    // The same users as JSON, imported in one write transaction with two indexes kept in step.
    let formatter = ISO8601DateFormatter()
    var json = "["
    for (i, user) in users.enumerated() {
        if i > 0 { json += ",\n" }
        let lucky = user.luckyNumber.map(String.init) ?? "null"
        json += #"{"id": \#(user.id), "first_name": "\#(user.firstName)", "last_name": "\#(user.lastName)", "#
            + #""lucky_number": \#(lucky), "created_at": "\#(formatter.string(from: user.createdDate))", "etag": "x"}"#
    }
    json += "]"
    let payload = Data(json.utf8)
    print("JSON import: \(count.formatted()) users, \((payload.count / 1024).formatted()) KiB, indexes on lastName[cd] and luckyNumber")
    let imported = try measure("import, one write transaction", count: count) {
        try store.importJSON(payload, as: Member.self)
    }
    print("  \(imported)")
    let again = try measure("the same payload again", count: count) { try store.importJSON(payload, as: Member.self) }
    print("  \(again)")
    let page = Data(#"[{"id": 1, "first_name": "Gob", "last_name": "Bluth"}, {"id": 2, "lucky_number": "seven"}]"#.utf8)
    let synced = try store.importJSON(page, as: Member.self, options: ImportOptions(
        mode: .sync(scope: "lastName ==[cd] %@", "fünke"), onError: .skip, dryRun: true))
    print("  a dry-run sync of a 2-record page, scoped to lastName ==[cd] 'fünke':\n  \(synced)")
    let (matches, plan) = try store.read { tx in
        let query = try tx.query(Member.self).where("lastName ==[cd] %@ AND luckyNumber > 90", "FUNKE")
        return (try query.count(), try query.explain())
    }
    print("  \(matches) members named Fünke with luckyNumber > 90; plan: \(plan)")
} catch {
    FileHandle.standardError.write(Data("strata-demo: \(error)\n".utf8))
    exit(1)
}

// codec-micro [--count N (10000)] [--rounds R (20)] [--only get|scan|all|codable-get|codable-scan|upsert|codable-upsert]
//
// The record codec in isolation from disk: a store small enough to stay in the page cache, read
// and written over and over. Each measurement is its own non-inlined function (`timed…`), so
// `valgrind --tool=callgrind --toggle-collect='*timedPointReads*' codec-micro --only get --rounds 1`
// counts the instructions of exactly one of them. Times are wall-clock per record.
import Dataset
import EngineComparison
import Foundation
import Strata

/// `BenchUser` without `FieldCodable`: the same fields, through synthesized `Codable`.
struct CodableUser: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var luckyNumber: Int?
    var city: String
    var score: Double
    var active: Bool
    var tags: [String]
    var createdAt: Date
    var updatedAt: Date

    static let primaryKey = \CodableUser.id

    init(_ user: GeneratedUser) {
        id = user.id
        firstName = user.firstName
        lastName = user.lastName
        email = user.email
        luckyNumber = user.luckyNumber
        city = user.city
        score = user.score
        active = user.active
        tags = user.tags
        createdAt = user.createdAt
        updatedAt = user.updatedAt
    }
}

@inline(never) func timedPointReads<T: Record>(_ store: Store, _: T.Type, _ keys: [Int64]) throws -> Int where T.PrimaryKey == Int64 {
    try store.read { tx in
        var found = 0
        for key in keys where try tx.get(T.self, key: key) != nil { found += 1 }
        return found
    }
}

@inline(never) func timedScan<T: Record>(_ store: Store, _: T.Type) throws -> Int {
    try store.read { tx in
        var seen = 0
        try tx.forEach(T.self) { _ in seen += 1 }
        return seen
    }
}

@inline(never) func timedAll<T: Record>(_ store: Store, _: T.Type) throws -> Int {
    try store.read { tx in try tx.all(T.self).count }
}

@inline(never) func timedUpsert<T: Record>(_ store: Store, _ records: [T]) throws {
    try store.write { tx in try tx.upsert(records) }
}

func run() throws {
var count = 10_000
var rounds = 20
var only: String?
var arguments = BenchmarkArguments(tool: "codec-micro")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--rounds": rounds = arguments.positiveInteger(for: flag)
    case "--only": only = arguments.choice(for: flag, ["get", "scan", "all", "codable-get", "codable-scan", "upsert", "codable-upsert"])
    case "--help", "-h":
        print("usage: codec-micro [--count N (10000)] [--rounds R (20)] [--only get|scan|all|codable-get|codable-scan|upsert|codable-upsert]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

let workload = Workload(count: count)
let users = workload.users.map(BenchUser.init)
let codableUsers = workload.users.map(CodableUser.init)
let directory = try ScratchDirectory(prefix: "codec-micro")
defer { directory.remove() }
let store = try Store(path: directory.url.appendingPathComponent("store").path)
try store.write { tx in
    try tx.upsert(users)
    try tx.upsert(codableUsers)
}

func report(_ name: String, records: Int, _ body: () throws -> Void) rethrows {
    guard only == nil || only == name else { return }
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    for _ in 0..<rounds { best = min(best, try clock.measure(body)) }
    let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
    print("\(name): \(String(format: "%.1f", seconds * 1e9 / Double(records))) ns/record (best of \(rounds)), \(Int(Double(records) / seconds)) records/s")
}

let keys = workload.readOrder
func expect(_ value: Int, _ what: String) {
    if value != count { benchmarkFailure("codec-micro", "\(what): \(value) of \(count)") }
}
try report("get", records: count) { expect(try timedPointReads(store, BenchUser.self, keys), "get") }
try report("scan", records: count) { expect(try timedScan(store, BenchUser.self), "scan") }
try report("all", records: count) { expect(try timedAll(store, BenchUser.self), "all") }
try report("codable-get", records: count) { expect(try timedPointReads(store, CodableUser.self, keys), "codable-get") }
try report("codable-scan", records: count) { expect(try timedScan(store, CodableUser.self), "codable-scan") }
// Unchanged records: every one is encoded and compared with the stored bytes, none rewritten.
try report("upsert", records: count) { try timedUpsert(store, users) }
try report("codable-upsert", records: count) { try timedUpsert(store, codableUsers) }
}

do { try run() } catch { benchmarkFailure("codec-micro", "\(error)") }

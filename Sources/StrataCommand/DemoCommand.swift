import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Generate users, import them as JSON with progress, and run showcase queries with their plans and timings.",
        discussion: "Without --store it works in a temporary directory that is removed at the end."
    )

    @Option(parsing: .unconditional, help: "How many users to generate (1 to 10,000,000).") var records = 100_000
    @Option(help: "Keep the store at this path instead of a temporary one.") var store: String?

    func validate() throws {
        guard (1...10_000_000).contains(records) else { throw ValidationError("--records must be from 1 to 10000000 (it is \(records))") }
    }

    func run() throws {
        let path = store ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString)").path
        defer { if store == nil { try? FileManager.default.removeItem(atPath: path) } }
        let store = try Store(path: path, configuration: .command())
        Terminal.write("Strata demo: \(records.formatted()) users in \(path)\n\n")

        let json = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let bytes = try DemoUsers.write(count: records, to: json)
        Terminal.write("1. JSON import: \(records.formatted()) users, \(bytes.formatted()) bytes, 4 indexes, one write transaction\n")
        let bar = ProgressBar("   importing", unit: "records")
        var options = ImportOptions()
        options.progress = { bar.update(fraction: $0.fractionCompleted, count: $0.recordsRead) }
        let report: ImportReport
        do { report = try store.importJSON(contentsOf: json, entity: DemoUsers.description, options: options) } catch {
            bar.finish(completed: false)
            throw error
        }
        bar.finish(completed: true)
        Terminal.write("   \(report)\n")
        let again = try store.importJSON(contentsOf: json, entity: DemoUsers.description)
        Terminal.write("   the same file again: \(again)\n")
        let page = Data(#"{"users": [{"id": 1, "first_name": "Gob", "last_name": "Bluth", "email": "gob@bluth.example"}, {"id": 2, "lucky_number": "seven"}]}"#.utf8)
        let synced = try store.importJSON(page, entity: DemoUsers.description, options: ImportOptions(
            mode: .sync(scope: "lastName ==[cd] %@", "fünke"), rootKey: "users", onError: .skip, dryRun: true))
        Terminal.write("   a dry-run sync of a 2-record page, scoped to lastName ==[cd] 'fünke':\n   \(synced)\n\n")

        Terminal.write("2. Queries (the plan the planner chose, the time, the first rows)\n")
        let queries: [(String, String?, Int?)] = [
            (#"lastName ==[cd] "FUNKE" AND luckyNumber > 90"#, nil, nil),
            ("luckyNumber == nil", "lastName desc,firstName", 3),
            (#"lastName == "Bluth" ORDER BY luckyNumber DESC LIMIT 3"#, nil, nil),
            (#"createdAt >= CAST("2021-01-01T00:00:00Z", "NSDate") AND createdAt < CAST("2021-01-31T00:00:00Z", "NSDate")"#, "createdAt", 3),
            (#"ANY tags == "vip" AND city BEGINSWITH[c] "ber""#, nil, 3),
            (#"luckyNumber IN {3, 7, 13} OR lastName ==[cd] "swanson""#, nil, 3),
            (#"email ENDSWITH "@bluth.example""#, nil, 3),
        ]
        for (predicate, sort, limit) in queries {
            try store.read { tx in
                var request = try tx.query(entity: "User").where(predicate, arguments: [])
                if let sort { request = try request.sorted(by: sort) }
                let plan = try (limit.map { request.limit($0) } ?? request).explain()
                let start = ContinuousClock.now
                let count = try request.count()
                let rows = try request.limit(min(limit ?? 3, 3)).all()
                let elapsed = ContinuousClock.now - start
                Terminal.write("   \(predicate)\(sort.map { " sorted by \($0)" } ?? "")\(limit.map { " limit \($0)" } ?? "")\n")
                Terminal.write("     plan: \(plan)\n     \(count.formatted()) matching, \(Self.milliseconds(elapsed)) ms\n")
                for row in rows {
                    Terminal.write("     → " + ["id", "firstName", "lastName", "luckyNumber", "city"].map { RecordOutput.cell(row[$0]) }.joined(separator: " ") + "\n")
                }
            }
        }

        Terminal.write("\n3. Checks\n")
        let verification = try store.read { tx in try tx.verifyIndexes(entity: "User") }
        Terminal.write("   verify: \(verification.recordsChecked.formatted()) records, \(verification.entriesExpected.formatted()) index entries, "
            + (verification.isConsistent ? "consistent" : "PROBLEMS: \(verification.problems)") + "\n")
        do {
            try store.write { tx in
                try tx.delete(entity: "User", key: .int(1))
                throw CommandFailure(message: "rolled back")
            }
        } catch is CommandFailure {
            let stillThere = try store.read { tx in try tx.record(entity: "User", key: .int(1)) != nil }
            Terminal.write("   a write that throws rolls back: user 1 still there = \(stillThere)\n")
        }
        let statistics = try store.statistics()
        Terminal.write("   store: \(statistics.usedBytes.formatted()) bytes used of a \(statistics.mapSize.formatted())-byte map\n")
        Terminal.write("\nTry: strata query STORE User 'lastName ==[cd] \"bluth\" ORDER BY luckyNumber DESC LIMIT 5' (run with --store to keep it)\n")
        guard verification.isConsistent else { throw CommandFailure(message: "the demo store does not verify") }
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
}

/// The demo's users: generated deterministically, written as a REST API sends them.
enum DemoUsers {
    static let description = EntityDescription(name: "User", primaryKey: "id", fields: [
        FieldDescription("id", .integer),
        FieldDescription("firstName", .string),
        FieldDescription("lastName", .string),
        FieldDescription("email", .string),
        FieldDescription("luckyNumber", .integer, optional: true),
        FieldDescription("city", .string),
        FieldDescription("tags", .array(.string)),
        FieldDescription("createdAt", .date),
    ], indexes: [
        IndexDescription(fields: ["lastName"], collation: .caseAndDiacriticInsensitive),
        IndexDescription(fields: ["luckyNumber"]),
        IndexDescription(fields: ["createdAt"]),
        IndexDescription(fields: ["tags"], multiValue: true),
    ])

    static let firstNames = ["Jimmy", "Doogie", "George", "Michael", "Lindsay", "Tobias", "Lucille", "Gob", "Buster", "Maeby"]
    static let lastNames = ["James", "Howser", "Bluth", "Fünke", "Austero", "Sitwell", "Zuckerkorn", "Veal", "Swanson"]
    static let cities = ["Berlin", "Bern", "Madrid", "Lisbon", "Newport Beach", "Pawnee"]
    static let tags = ["vip", "beta", "staff", "new"]

    /// Writes `count` users as a JSON array under the key "users" and returns the byte count.
    static func write(count: Int, to url: URL) throws -> Int {
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
            throw CommandFailure(message: "cannot write \(url.path)")
        }
        defer { try? handle.close() }
        var chunk = "["
        var total = 0
        for i in 1...count {
            let lucky = i % 5 == 0 ? "null" : String(i % 100)
            let last = lastNames[(i / 7) % lastNames.count]
            // Spread over three years from 2020-09-13, whatever the count.
            let created = Date(timeIntervalSince1970: 1_600_000_000 + Double(i) * 94_608_000 / Double(count)).formatted(.iso8601)
            let tagList = (0...(i % 3)).map { "\"\(tags[(i + $0) % tags.count])\"" }.joined(separator: ", ")
            chunk += (i > 1 ? ",\n" : "\n") + #"{"id": \#(i), "first_name": "\#(firstNames[i % firstNames.count])", "last_name": "\#(last)", "#
                + #""email": "user\#(i)@\#(last == "Bluth" ? "bluth" : "mail").example", "lucky_number": \#(lucky), "#
                + #""city": "\#(cities[i % cities.count])", "tags": [\#(tagList)], "created_at": "\#(created)"}"#
            if chunk.utf8.count > 1 << 20 {
                total += chunk.utf8.count
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += "\n]\n"
        total += chunk.utf8.count
        handle.write(Data(chunk.utf8))
        return total
    }
}

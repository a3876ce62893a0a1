import Foundation
import Testing
import TestSupport

/// The `strata` binary run on damaged copies of a store's `data.mdb`: truncated at many points,
/// with bytes flipped at random, with whole pages zeroed. Each run is a child process, so a
/// signal or an LMDB assertion shows as an exit status other than 0 and 1 or a crash report.
///
/// A truncated file is refused by every command, before LMDB maps it, with an error naming the
/// file and the sizes. Damage inside the pages is what `verify` finds: it walks every page
/// before LMDB reads one and either fails with an error naming the page or passes. `query` and
/// `get` run on every damaged copy too, whatever verify said: they answer, or fail with an error
/// (LMDB's page assertions and memory faults of the map end the tool with a message and exit
/// status 1), and never end by a signal.
///
/// `swift test` runs 4 truncations, 12 flips and 4 zeroed pages; `STRATA_EXTENDED=1` runs 20
/// truncations, 200 flips and every page zeroed in turn.
@Suite struct DamagedFileTests {
    static let extended = ProcessInfo.processInfo.environment["STRATA_EXTENDED"] == "1"

    let dir: TemporaryDirectory
    let base: String
    let original: Data

    static let schema = #"""
        { "entities": { "User": { "primaryKey": "id",
            "fields": { "id": {"type": "int"}, "name": {"type": "string"}, "age": {"type": "int"}, "bio": {"type": "string"} },
            "indexes": [ {"fields": ["age"]}, {"fields": ["name"], "unique": true} ] } } }
        """#

    /// A store of 3,000 users with two indexes (one of sorted duplicates) and a few values
    /// larger than a page (overflow pages), so that every kind of page is there to damage.
    init() throws {
        dir = try TemporaryDirectory("strata-damage")
        base = dir.path("base")
        guard FileManager.default.isExecutableFile(atPath: StrataCLI.binary) else {
            original = Data()
            return
        }
        let users = (0..<3000).map { id -> [String: Any] in
            ["id": id, "name": "user\(id)", "age": id % 90, "bio": String(repeating: "b", count: id % 97 == 0 ? 6000 : id % 300)]
        }
        let json = dir.path("users.json"), schema = dir.path("schema.json")
        try JSONSerialization.data(withJSONObject: users).write(to: URL(fileURLWithPath: json))
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: schema))
        let imported = try StrataCLI.run(["import", base, json, "--entity", "User", "--schema", schema])
        try #require(imported.status == 0, "\(imported.error)")
        original = try Data(contentsOf: URL(fileURLWithPath: base + "/data.mdb"))
    }

    /// How one command ended.
    enum Outcome: Equatable {
        case succeeded, failed, crashed(String)
    }

    /// Runs `strata arguments`: 0 and 1 are answers, anything else (a signal, an abort) is a crash.
    static func run(_ arguments: [String]) throws -> (outcome: Outcome, error: String) {
        let result = try StrataCLI.run(arguments)
        // LMDB's assertion text may appear inside the error that replaces its abort (exit status 1).
        let crashReport = result.error.contains("Program crashed")
        switch result.status {
        case 0 where !crashReport: return (.succeeded, result.error)
        case 1 where !crashReport: return (.failed, result.error)
        default: return (.crashed("exit status \(result.status): \(result.error.prefix(300))"), result.error)
        }
    }

    /// A copy of the store whose `data.mdb` is `bytes`.
    func damagedCopy(_ bytes: Data, _ label: String) throws -> String {
        let path = dir.path(label)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: path + "/data.mdb"))
        return path
    }

    /// The reading commands run on every damaged copy.
    static func readers(_ store: String) -> [[String]] {
        [["query", store, "User", "age > 40"], ["get", store, "User", "1234"], ["query", store, "User", #"name == "user77""#]]
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func aTruncatedDataFileIsRefusedByEveryCommandWithoutASignal() throws {
        let pageSize = 4096
        let pages = original.count / pageSize
        #expect(try Self.run(["verify", base]).outcome == .succeeded)
        // 0 bytes, inside the meta pages, and page boundaries and odd sizes spread over the file.
        var sizes = [0, 100, 4096, 8192, pageSize * (pages / 2) + 17, original.count - pageSize]
        if Self.extended {
            sizes += (1...14).map { original.count * $0 / 15 }
        }
        sizes = Array(sizes.prefix(Self.extended ? 20 : 4)) + (Self.extended ? [] : [original.count - pageSize])
        var refused = 0
        for size in sizes {
            let store = try damagedCopy(original.prefix(size), "truncated-\(size)")
            for arguments in [["verify", store]] + Self.readers(store) {
                let (outcome, error) = try Self.run(arguments)
                #expect(outcome == .failed, "\(arguments[0]) on data.mdb truncated to \(size) bytes: \(outcome)")
                #expect(error.contains("damaged") && error.contains("data.mdb"), "\(arguments[0]) at \(size) bytes: \(error)")
                if outcome == .failed { refused += 1 }
            }
            // The file is left as it was: an empty one is not made into a new store.
            #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")).count == size)
        }
        print("DamagedFileTests: \(sizes.count) truncations, \(refused) of \(sizes.count * 4) commands refused the file with an error")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func flippedBytesAreFoundByVerifyOrHarmlessAndNeverASignal() throws {
        var random = SeededGenerator(seed: 0x5EED_F11B)
        let flips = Self.extended ? 200 : 12
        var rejected = 0, passed = 0, signals = 0, readerErrors = 0
        for flip in 0..<flips {
            var bytes = original
            let offset = Int.random(in: 0..<bytes.count, using: &random)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            let store = try damagedCopy(bytes, "flip")
            let (verify, error) = try Self.run(["verify", store])
            if case .crashed = verify { signals += 1; Issue.record("verify crashed after flip \(flip) at byte \(offset): \(verify)"); continue }
            if verify == .failed {
                rejected += 1
                #expect(!error.isEmpty, "verify failed without saying why (flip at byte \(offset))")
            } else {
                passed += 1
            }
            for arguments in Self.readers(store) {
                let (outcome, error) = try Self.run(arguments)
                if case .crashed = outcome { signals += 1; Issue.record("\(arguments[0]) crashed (flip at byte \(offset)): \(outcome)") }
                if outcome == .failed { readerErrors += 1; #expect(error.hasPrefix("error: "), "\(arguments[0]) failed without an error message: \(error)") }
            }
        }
        print("DamagedFileTests: \(flips) byte flips, verify found damage in \(rejected), passed \(passed); readers answered or failed with an error (\(readerErrors) errors); \(signals) signals")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func zeroedPagesAreFoundByVerifyOrHarmlessAndNeverASignal() throws {
        let pageSize = 4096
        let pages = original.count / pageSize
        var random = SeededGenerator(seed: 0x2E80)
        let chosen = Self.extended ? Array(0..<pages) : [54] + (0..<3).map { _ in Int.random(in: 2..<pages, using: &random) }
        var rejected = 0, passed = 0, signals = 0, readerErrors = 0
        for page in chosen {
            var bytes = original
            bytes.replaceSubrange(page * pageSize ..< (page + 1) * pageSize, with: Data(count: pageSize))
            let store = try damagedCopy(bytes, "zeroed")
            let (verify, error) = try Self.run(["verify", store])
            if case .crashed = verify { signals += 1; Issue.record("verify crashed with page \(page) zeroed: \(verify)"); continue }
            if verify == .failed {
                rejected += 1
                #expect(error.contains("page"), "page \(page) zeroed: \(error)")
            } else {
                passed += 1
            }
            for arguments in Self.readers(store) {
                let (outcome, error) = try Self.run(arguments)
                if case .crashed = outcome { signals += 1; Issue.record("\(arguments[0]) crashed (page \(page) zeroed): \(outcome)") }
                if outcome == .failed { readerErrors += 1; #expect(error.hasPrefix("error: "), "\(arguments[0]) failed without an error message: \(error)") }
            }
        }
        print("DamagedFileTests: \(chosen.count) zeroed pages, verify found damage in \(rejected), passed \(passed); readers answered or failed with an error (\(readerErrors) errors); \(signals) signals")
        #expect(rejected > 0, "no zeroed page was found damaged: the pages chosen are all free?")
    }
}

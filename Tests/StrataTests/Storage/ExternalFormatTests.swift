import Foundation
import Testing
import TestSupport
@testable import Strata

/// The on-disk format is plain LMDB + CBOR + a JSON catalog: a program in another language, with
/// only the `lmdb` and `cbor2` modules, reads what Strata wrote (tools/read-store.py).
@Suite(.enabled(if: Python.hasModules(["lmdb", "cbor2"]),
                "python3 with the lmdb and cbor2 modules is missing: `pip install lmdb cbor2` (CI installs them)"))
struct ExternalFormatTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/read-store.py").path

    struct Dump: Decodable {
        struct Entry: Decodable { var key: String; var value: [String: DumpedJSON] }
        var format: Int
        var primaryKey: String
        var records: [Entry]
    }

    func dump(_ entity: String) throws -> Dump {
        let script = try String(contentsOfFile: Self.script, encoding: .utf8)
        let result = try Python.run(script, arguments: [store.path, entity])
        try #require(result.status == 0, "read-store.py failed: \(result.error)")
        return try JSONDecoder().decode(Dump.self, from: Data(result.output.utf8))
    }

    @Test func pythonReadsUsersWithTheCatalogsFieldNames() throws {
        let users = [User.sample(-3, "Doogie", "Howser", lucky: nil), User.sample(1), User.sample(42, "Ünïcode", "名前")]
        try store.write { tx in try tx.insert(users) }
        let dump = try dump("User")
        #expect(dump.format == 1)
        #expect(dump.primaryKey == "id")
        // Keys come back in the order LMDB keeps them: the primary keys' order, negative first.
        #expect(dump.records.map(\.key) == users.map { $0.id.orderedKey.map { String(format: "%02x", $0) }.joined() })
        for (entry, user) in zip(dump.records, users) {
            #expect(entry.value["id"] == .number(Double(user.id)))
            #expect(entry.value["firstName"] == .string(user.firstName))
            #expect(entry.value["lastName"] == .string(user.lastName))
            #expect(entry.value["luckyNumber"] == user.luckyNumber.map { .number(Double($0)) })
            let iso = ISO8601DateFormatter().string(from: user.createdDate).replacingOccurrences(of: "Z", with: "+00:00")
            #expect(entry.value["createdDate"] == .object(["date": .string(iso)]))
        }
    }

    @Test func pythonReadsTaggedValuesAsStandardCBOR() throws {
        let value = Everything.sample()
        try store.write { tx in try tx.insert(value) }
        let record = try #require(try dump("Everything").records.first).value
        #expect(record["id"] == .object(["uuid": .string(value.id.uuidString)]))
        #expect(record["data"] == .object(["bytes": .string(value.data.base64EncodedString())]))
        #expect(record["uint64"] == .number(Double(UInt64.max)))
        #expect(record["text"] == .string(value.text))
        #expect(record["mood"] == .string("busy"))
        #expect(record["numbers"] == .array([.number(1), .number(-2), .number(3)]))
        #expect(record["address"] == .object(["street": .string("Main")]))
        #expect(record["attributes"] == .object(["k": .string("v"), "ü": .string("ö")]))
        #expect(record["optional"] == nil)
    }

    /// 128-bit integers are standard CBOR bignums beyond 64 bits (tags 2 and 3), which Python's
    /// cbor2 reads as plain integers, digit for digit.
    @Test func pythonReadsWideIntegersAsExactIntegers() throws {
        let ledger = Ledger(id: 1, balance: .min, supply: .max, limit: Int128(UInt64.max) + 1, history: [5, UInt128(1) << 100])
        try store.write { tx in try tx.insert(ledger) }
        let script = try String(contentsOfFile: Self.script, encoding: .utf8)
        let result = try Python.run(script, arguments: [store.path, "Ledger"])
        try #require(result.status == 0, "read-store.py failed: \(result.error)")
        // The printed JSON holds the exact digits (a Double would have rounded them).
        for digits in ["\"balance\": -170141183460469231731687303715884105728", "\"supply\": 340282366920938463463374607431768211455",
                       "\"limit\": 18446744073709551616", "\"history\": [5, 1267650600228229401496703205376]"] {
            #expect(result.output.contains(digits), "\(digits) in \(result.output)")
        }
    }
}

/// Any JSON value, for comparing what the Python reader printed.
enum DumpedJSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([DumpedJSON]), object([String: DumpedJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([DumpedJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: DumpedJSON].self)) }
    }
}

@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataImport
@testable import StrataFormat

/// The one walk over a stored record's top-level map (`RecordCursor`) and the readers built on it
/// (`FieldSelection`/`StoredFieldValues`, `StoredRecord`, the unchanged check), each against the
/// Swift value the bytes were encoded from, on random records whose field ids are spread over one-
/// and two-byte keys; and on damaged bytes, where every reader throws and none crashes.
@Suite struct RecordCursorTests {
    struct Row: Codable, Equatable {
        var id: Int64
        var name: String
        var nick: String?
        var score: Double
        var count: Int?
        var tags: [String]
        var address: CodecAddress?
        var flag: Bool
        var when: Date?
    }

    static let names = ["id", "name", "nick", "score", "count", "tags", "address", "flag", "when"]

    static func randomText(_ random: inout SeededGenerator) -> String {
        let alphabet: [Character] = ["a", "Z", "0", " ", "é", "ß", "😀", "k", "\u{0}"]
        return String((0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    static func randomRow(_ random: inout SeededGenerator) -> Row {
        Row(id: Int64.random(in: .min ... .max, using: &random),
            name: randomText(&random),
            nick: Bool.random(using: &random) ? nil : randomText(&random),
            score: [0, -0.0, 1.5, -1e300, Double.random(in: -1e9...1e9, using: &random)].randomElement(using: &random)!,
            count: Bool.random(using: &random) ? nil : Int.random(in: -100_000...100_000, using: &random),
            tags: (0..<Int.random(in: 0...4, using: &random)).map { _ in randomText(&random) },
            address: Bool.random(using: &random) ? nil
                : CodecAddress(street: randomText(&random), city: randomText(&random), zip: Bool.random(using: &random) ? nil : "12345"),
            flag: Bool.random(using: &random),
            when: Bool.random(using: &random) ? nil : Date(timeIntervalSince1970: Double.random(in: -4e9...4e9, using: &random)))
    }

    /// A table that gives the row's fields ids in a random order after `filler` unrelated names,
    /// so that some keys take one byte and some two.
    static func randomTable(_ random: inout SeededGenerator) -> FieldTable {
        var table = FieldTable()
        for index in 0..<Int.random(in: 0...30, using: &random) { table.assign("filler\(index)") }
        for name in names.shuffled(using: &random) { table.assign(name) }
        return table
    }

    /// The query value of each top-level field the row stores (nil optionals are not stored).
    static func expected(_ row: Row) -> [String: QueryValue] {
        var values: [String: QueryValue] = [
            "id": .int(row.id), "name": .string(row.name), "score": .double(row.score),
            "tags": .list(row.tags.map { .string($0) }), "flag": .bool(row.flag),
        ]
        if let nick = row.nick { values["nick"] = .string(nick) }
        if let count = row.count { values["count"] = .int(Int64(count)) }
        if let when = row.when { values["when"] = .date(when) }
        return values
    }

    /// Random rows, each with its table and bytes (which decode back to the row).
    static func samples(_ count: Int, seed: UInt64) throws -> [(row: Row, table: FieldTable, bytes: [UInt8])] {
        var random = SeededGenerator(seed: seed)
        return try (0..<count).map { _ in
            let row = randomRow(&random)
            var table = randomTable(&random)
            let bytes = try CodecHarness.encode(row, fields: &table)
            #expect(try CodecHarness.decode(Row.self, bytes, fields: table) == row)
            return (row, table, bytes)
        }
    }

    @Test func entriesNameEveryStoredFieldAndTheirRangesRebuildTheBytes() throws {
        for (row, table, bytes) in try Self.samples(300, seed: 1) {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            let entries = try cursor.entries(in: reader)
            var stored = Set(Self.expected(row).keys)
            if row.address != nil { stored.insert("address") }
            #expect(Set(entries.map { table.name(for: $0.id)! }) == stored)
            #expect(entries.count == stored.count, "no field twice")
            // The ranges are the values, every byte accounted for: the map rebuilt from them is the record.
            var writer = CBORWriter(capacity: bytes.count)
            writer.writeHead(.map, UInt64(entries.count))
            for entry in entries {
                writer.writeInteger(entry.id)
                writer.bytes += bytes[entry.value]
            }
            #expect(writer.bytes == bytes)
            // StoredRecord reads the same entries, in the same order.
            let record = try StoredRecord(key: row.id.orderedKey, bytes: bytes, fields: table, entity: "Row")
            #expect(record.fields.map(\.key) == entries.map { table.name(for: $0.id)! })
            #expect(record["name"] == .string(row.name))
        }
    }

    @Test func selectionsFindTheirFieldsAndReadThemAsQueryValues() throws {
        var random = SeededGenerator(seed: 2)
        var offsets: [Int] = []
        for (row, table, bytes) in try Self.samples(300, seed: 3) {
            let expected = Self.expected(row)
            // A random selection, with a name never stored: its values are the row's.
            let chosen = Array(Self.names.shuffled(using: &random).prefix(Int.random(in: 1...5, using: &random))) + ["nowhere"]
            let selection = FieldSelection(names: chosen, fields: table)
            let values = try selection.values(of: bytes, reusing: &offsets)
            for name in chosen where name != "address" {
                #expect(values.value(at: [name]) == expected[name], "\(name) of \(row)")
            }
            // Every field, by name, as aggregates and exports read them; nested paths through the struct.
            let all = try StoredFieldValues(bytes: bytes, fields: table, entity: "Row")
            for name in Self.names where name != "address" {
                #expect(all.value(at: [name]) == expected[name], "\(name) of \(row)")
            }
            #expect(all.value(at: ["address"]) == nil, "a struct is not a comparable value")
            #expect(all.value(at: ["address", "city"]) == row.address.map { .string($0.city) })
            #expect(all.value(at: ["address", "zip"]) == row.address?.zip.map { .string($0) })
            #expect(all.value(at: ["nowhere"]) == nil)
        }
    }

    @Test func textIsComparedInPlaceAsTheDecodedTextCompares() throws {
        for (row, table, bytes) in try Self.samples(300, seed: 4) {
            let name = Array(row.name.utf8)
            let single = FieldSelection(names: ["name"], fields: table)
            #expect(single.singleTextEquals(bytes, name) == true)
            #expect(single.singleTextEquals(bytes, name + [0x61]) == false)
            if !name.isEmpty { #expect(single.singleTextEquals(bytes, Array(name.dropLast())) == false) }
            // Not a text string, or not stored: no answer in place.
            #expect(FieldSelection(names: ["score"], fields: table).singleTextEquals(bytes, name) == nil)
            #expect(FieldSelection(names: ["nick"], fields: table).singleTextEquals(bytes, Array((row.nick ?? "").utf8)) == (row.nick == nil ? nil : true))
            #expect(FieldSelection(names: ["nowhere"], fields: table).singleTextEquals(bytes, name) == nil)
            var offsets: [Int] = []
            let values = try FieldSelection(names: ["score", "name"], fields: table).values(of: bytes, reusing: &offsets)
            #expect(values.textEquals(slot: 1, name) == true)
            #expect(values.textEquals(slot: 1, name + [0x20]) == false)
            #expect(values.textEquals(slot: 0, name) == nil)
        }
    }

    @Test func matchesIsTrueExactlyForTheStoredEntries() throws {
        for (_, _, bytes) in try Self.samples(200, seed: 5) {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            let entries = try cursor.entries(in: reader)
            func matches(_ stored: [UInt8], _ entries: [(id: Int, value: Range<Int>)], count: Int) -> Bool {
                stored.withUnsafeBufferPointer { stored in
                    bytes.withUnsafeBufferPointer { source in
                        RecordCursor.matches(stored, count: count) { match in
                            entries.allSatisfy { match.entry($0.id, UnsafeBufferPointer(rebasing: source[$0.value])) }
                        }
                    }
                }
            }
            #expect(matches(bytes, entries, count: entries.count))
            #expect(!matches(bytes, entries, count: entries.count + 1))
            #expect(!matches(bytes, Array(entries.dropLast()), count: entries.count - 1))
            #expect(!matches(bytes + [0], entries, count: entries.count))
            #expect(!matches(Array(bytes.dropLast()), entries, count: entries.count))
            #expect(!matches(bytes, entries.reversed(), count: entries.count) || entries.count < 2)
            var changed = bytes
            changed[entries.last!.value.upperBound - 1] ^= 0x01
            #expect(!matches(changed, entries, count: entries.count))
        }
    }

    @Test func findAndTheEntriesBeforeTheCursorWalkInStoredOrder() throws {
        for (_, _, bytes) in try Self.samples(100, seed: 6) {
            let reader = CBORReader(bytes: bytes)
            var all = try RecordCursor(reader)
            let entries = try all.entries(in: reader)
            for (index, entry) in entries.enumerated() {
                var cursor = try RecordCursor(reader)
                #expect(try cursor.find(id: entry.id, in: reader) == entry.value.lowerBound)
                #expect(cursor.entryIndex == index + 1)
                var earlier = cursor.entriesBefore
                var ids: [Int] = []
                while let id = try earlier.nextField(in: reader) { ids.append(id); try earlier.skipValue(in: reader) }
                #expect(ids == entries.prefix(index + 1).map(\.id))
                cursor.move(pastEntry: index, valueEnd: entry.value.upperBound)
                #expect(cursor.remaining == entries.count - index - 1)
                var rest = cursor
                #expect(try rest.entries(in: reader).map(\.id) == entries.dropFirst(index + 1).map(\.id))
            }
            // Passing an entry read by the caller moves as skipping it does.
            var skipping = try RecordCursor(reader)
            var passing = skipping
            if try skipping.nextField(in: reader) != nil {
                let value = try skipping.skipValue(in: reader)
                passing.pass(entryEndingAt: value.upperBound)
                #expect(passing.position == skipping.position && passing.remaining == skipping.remaining)
            }
            var cursor = try RecordCursor(reader)
            #expect(try cursor.find(id: 1_000_000, in: reader) == nil)
            #expect(cursor.remaining == 0)
        }
    }

    @Test func theFieldHoldingAnOffsetIsTheEntryWhoseValueRangeHoldsIt() throws {
        for (_, _, bytes) in try Self.samples(60, seed: 10) {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            let entries = try cursor.entries(in: reader)
            for offset in -1...bytes.count {
                #expect(RecordCursor.field(holding: offset, in: reader) == entries.first { $0.value.contains(offset) }?.id, "offset \(offset)")
            }
            // Cut short: the entries whole before the cut still answer, and nothing crashes.
            for length in 0..<bytes.count {
                let cut = CBORReader(bytes: Array(bytes[..<length]))
                for offset in stride(from: 0, to: length, by: 3) {
                    if let id = RecordCursor.field(holding: offset, in: cut) {
                        #expect(id == entries.first { $0.value.contains(offset) }?.id)
                    }
                }
            }
        }
    }

    // MARK: Damaged bytes

    @Test func everyTruncationIsCorruptForEveryReader() throws {
        for (row, table, bytes) in try Self.samples(20, seed: 7) {
            let key = row.id.orderedKey
            for length in 0..<bytes.count {
                let cut = Array(bytes[..<length])
                #expect(throws: CBORReadFailure.self) {
                    let reader = CBORReader(bytes: cut)
                    var cursor = try RecordCursor(reader)
                    _ = try cursor.entries(in: reader)
                }
                let error = try #require(throws: StrataError.self) {
                    try StoredRecord(key: key, bytes: cut, fields: table, entity: "Row")
                }
                #expect(error.code == .corruptRecord && error.entity == "Row" && error.key == "\(row.id)", "\(error)")
                let fieldsError = try #require(throws: StrataError.self) {
                    try StoredFieldValues(bytes: cut, fields: table, entity: "Row")
                }
                #expect(fieldsError.code == .corruptRecord && fieldsError.entity == "Row")
                let layoutError = try #require(throws: StrataError.self) {
                    try RecordLayout.topLevelFields(of: cut, entity: "Row", key: "k")
                }
                #expect(layoutError.code == .corruptRecord && layoutError.key == "k")
                _ = FieldSelection(names: ["name"], fields: table).singleTextEquals(cut, Array(row.name.utf8))
            }
            // Bytes after the map, and a key that is not a field id.
            #expect(throws: CBORReadFailure.self) {
                let reader = CBORReader(bytes: bytes + [0])
                var cursor = try RecordCursor(reader)
                _ = try cursor.entries(in: reader)
            }
            var textKey = bytes
            textKey[1] = 0x60   // the first key becomes an empty text string
            #expect(throws: CBORReadFailure.self) {
                let reader = CBORReader(bytes: textKey)
                var cursor = try RecordCursor(reader)
                _ = try cursor.entries(in: reader)
            }
            #expect(throws: StrataError.self) { try StoredRecord(key: key, bytes: textKey, fields: table, entity: "Row") }
        }
    }

    @Test func randomDamageThrowsOrReadsButNeverCrashes() throws {
        var random = SeededGenerator(seed: 8)
        var thrown = 0
        var offsets: [Int] = []
        for (row, table, bytes) in try Self.samples(40, seed: 9) {
            let key = row.id.orderedKey
            let selection = FieldSelection(names: ["tags", "name", "when"], fields: table)
            for _ in 0..<200 {
                var damaged = bytes
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                do {
                    let reader = CBORReader(bytes: damaged)
                    var cursor = try RecordCursor(reader)
                    _ = try cursor.entries(in: reader)
                } catch {
                    thrown += 1
                }
                if let values = try? selection.values(of: damaged, reusing: &offsets) {
                    _ = values.value(at: ["tags"])
                    _ = values.value(at: ["when"])
                    _ = values.textEquals(slot: 1, Array(row.name.utf8))
                }
                _ = selection.singleTextEquals(damaged, Array(row.name.utf8))
                do {
                    _ = try StoredRecord(key: key, bytes: damaged, fields: table, entity: "Row")
                } catch {
                    #expect(error.code == .corruptRecord && error.entity == "Row")
                }
                do {
                    let all = try StoredFieldValues(bytes: damaged, fields: table, entity: "Row")
                    _ = all.value(at: ["address", "city"])
                } catch {
                    #expect(error.code == .corruptRecord && error.entity == "Row")
                }
            }
        }
        #expect(thrown > 0)
    }
}

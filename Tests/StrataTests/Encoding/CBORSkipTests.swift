@_spi(Format) import StrataFormat

import Testing
@testable import Strata
@testable import StrataFormat

/// `CBORReader.skipItemQuickly` handles common items inline and falls back to `skipItem` for the
/// rest: it must land where `skipItem` lands, and fail where it fails, for every item and every cut.
struct CBORSkipTests {
    /// One item per entry, around each length-form boundary of strings, integers and arrays.
    static func items() -> [[UInt8]] {
        var items: [[UInt8]] = []
        for length in [0, 1, 23, 24, 25, 255, 256, 300, 65_535, 65_536] {
            var text = CBORWriter(capacity: length + 9)
            text.writeText(String(repeating: "a", count: length))
            items.append(text.bytes)
            var bytes = CBORWriter(capacity: length + 9)
            bytes.writeByteString([UInt8](repeating: 7, count: length))
            items.append(bytes.bytes)
        }
        for integer in [0, 23, 24, 255, 256, 65_536, Int.max, -1, -25, Int.min] {
            var writer = CBORWriter(capacity: 9)
            writer.writeInteger(integer)
            items.append(writer.bytes)
        }
        var array = CBORWriter(capacity: 64)
        array.writeHead(.array, 3)
        array.writeText("short")
        array.writeText(String(repeating: "long", count: 10))
        array.writeInteger(70_000)
        items.append(array.bytes)
        var tagged = CBORWriter(capacity: 16)
        tagged.writeTag(1)
        tagged.writeDouble(1_700_000_000.5)
        items.append(tagged.bytes)
        return items
    }

    @Test func skipsEveryItemToWhereTheGeneralSkipLands() throws {
        for item in Self.items() {
            // The item between two others, so an overrun or a short skip shows.
            let bytes: [UInt8] = [0x01] + item + [0x02]
            let reader = CBORReader(bytes: bytes)
            var quick = 1, general = 1
            try reader.skipItemQuickly(at: &quick)
            try reader.skipItem(at: &general)
            #expect(quick == general, "item \(item.prefix(4))… of \(item.count) bytes")
            #expect(quick == 1 + item.count)
        }
    }

    @Test func failsOnEveryCutItemAsTheGeneralSkipDoes() {
        for item in Self.items() where item.count > 1 {
            for cut in stride(from: 1, to: item.count, by: max(1, item.count / 40)) {
                let reader = CBORReader(bytes: Array(item.prefix(cut)))
                var quick = 0, general = 0
                let quickFailed = (try? reader.skipItemQuickly(at: &quick)) == nil
                let generalFailed = (try? reader.skipItem(at: &general)) == nil
                #expect(quickFailed && generalFailed, "item of \(item.count) bytes cut at \(cut)")
            }
        }
    }

    @Test func aLoneTextConditionFindsItsFieldPastLongStrings() throws {
        // `city == ?` on a scan reads past the fields before it without decoding them, e-mail
        // addresses of more than 23 bytes among them.
        var fields = FieldTable()
        var user = FieldUser.sample(3)
        user.email = String(repeating: "e", count: 40) + "@example.com"
        user.firstName = String(repeating: "f", count: 300)
        let bytes = try CodecHarness.encode(user, fields: &fields)
        let selection = FieldSelection(
            predicate: .comparison(FieldComparison(field: ["city"], op: .equal, value: .string(user.city))),
            orderings: [], fields: fields)
        #expect(selection.singleTextEquals(bytes, Array(user.city.utf8)) == true)
        #expect(selection.singleTextEquals(bytes, Array((user.city + "x").utf8)) == false)
    }
}

import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

/// The encoder's refusal of a date no export could write (`RecordEncoder.dateOutOfRange`, which
/// finds the field through `RecordCursor`): the error names the top-level field whose value holds
/// the date, wherever in the record and however deep in that value it is.
@Suite struct DateRangeCheckTests {
    struct Event: Codable {
        var id: Int64
        var title: String
        var place: CodecAddress?
        var notes: [String]
        var dates: [Date]
        var when: Date?
    }

    static let tooLate = Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01
    static let tooEarly = Date(timeIntervalSince1970: -62_167_219_201)  // just before year 0

    static func encode(_ event: Event, table: FieldTable) throws(StrataError) -> [UInt8] {
        var encoder = RecordEncoder()
        encoder.refusesUnstorableDates = true
        var table = table
        return try encoder.encode(event, fields: &table, entity: "Event")
    }

    @Test(arguments: [(Event(id: 1, title: "a", notes: [], dates: [], when: tooLate), "when"),
                      (Event(id: 2, title: String(repeating: "long ", count: 60), place: CodecAddress(street: "s", city: "c", zip: nil),
                             notes: (0..<30).map { "note \($0)" }, dates: [], when: tooEarly), "when"),
                      (Event(id: 3, title: "b", notes: ["x"], dates: [Date(timeIntervalSince1970: 0), .now, tooLate], when: .now), "dates")])
    func anOutOfRangeDateNamesTheFieldThatHoldsIt(event: Event, field: String) throws {
        // The same whatever ids the fields have (one- and two-byte keys, stored order shuffled).
        var random = SeededGenerator(seed: UInt64(event.id))
        for _ in 0..<20 {
            var table = FieldTable()
            for index in 0..<Int.random(in: 0...40, using: &random) { table.assign("filler\(index)") }
            for name in ["id", "title", "place", "notes", "dates", "when"].shuffled(using: &random) { table.assign(name) }
            let error = try #require(throws: StrataError.self) { try Self.encode(event, table: table) }
            #expect(error.code == .invalidValue && error.field == field && error.entity == "Event", "\(error)")
            #expect(error.message.contains("the field '\(field)' holds a date out of range"), "\(error.message)")
        }
    }

    @Test func datesInRangeAreStoredAndNoFieldIsNamedForBytesNoFieldHolds() throws {
        let event = Event(id: 4, title: "c", notes: [], dates: [Date(timeIntervalSince1970: -62_167_219_200)],
                          when: Date(timeIntervalSince1970: 253_402_300_799))
        let bytes = try Self.encode(event, table: FieldTable())
        // The map head is no field's value; a date said to be there is reported without a field.
        let error = RecordEncoder.dateOutOfRange((offset: 0, seconds: 1e12), in: bytes, fields: FieldTable())
        #expect(error.field == nil && error.message.hasPrefix("it holds a date out of range"))
    }
}

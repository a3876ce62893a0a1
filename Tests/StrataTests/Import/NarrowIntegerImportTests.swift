import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

private struct Gauge: Record, Equatable {
    var id: Int64
    var small: Int8
    var unsigned: UInt16?
    static let primaryKey = \Gauge.id
}

/// Integers are checked against the width of the record type's field, not only against Int64:
/// a value that does not fit fails its record, naming it and the field, so that nothing is
/// stored that the type cannot read back.
@Suite struct NarrowIntegerImportTests {
    @Test(arguments: [#"[{"id": 1, "small": 300}]"#, #"[{"id": 1, "small": -129}]"#,
                      #"[{"id": 1, "small": 1, "unsigned": -1}]"#, #"[{"id": 1, "small": 1, "unsigned": 65536}]"#,
                      #"[{"id": 1, "small": "300"}]"#])
    func aValueOutsideTheFieldsWidthFailsTheRecord(_ json: String) throws {
        let (store, _dir) = try makeStore()
        _ = _dir
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data(json.utf8), as: Gauge.self) }
        #expect(error.message.contains("out of range"), "\(error)")
        #expect(error.message.contains("small") || error.message.contains("unsigned"), "\(error)")
        #expect(try store.read { tx in try tx.count(Gauge.self) } == 0)
    }

    @Test func theRangesBelongToTheTypeNotToTheDescriptionsIdentity() throws {
        let derived = try EntityDescription(Gauge.self)
        #expect(derived.integerRanges.byField["small"] == WideInteger(-128)...WideInteger(127))
        #expect(derived.integerRanges.byField["unsigned"] == WideInteger(0)...WideInteger(65535))
        #expect(derived.integerRanges.byField["id"] == IntegerRanges.int64)
        var plain = derived
        plain.integerRanges = IntegerRanges()
        #expect(plain == derived)
    }

    @Test func valuesAtTheEdgesOfTheWidthImportAndReadBack() throws {
        let (store, _dir) = try makeStore()
        _ = _dir
        _ = try store.importJSON(Data(#"[{"id": 1, "small": -128, "unsigned": 65535}, {"id": 2, "small": 127, "unsigned": 0}]"#.utf8), as: Gauge.self)
        #expect(try store.read { tx in try tx.all(Gauge.self) } == [Gauge(id: 1, small: -128, unsigned: 65535), Gauge(id: 2, small: 127, unsigned: 0)])
    }
}

import Strata
import Testing

/// Integers written as JSON text (the tool's JSON output and every JSON the library writes):
/// the decimal digits of every width, both signs and both ends of the range.
@Suite struct JSONIntegerTextTests {
    @Test(arguments: [0, 7, 9, 10, 42, 99, 100, 474_600, 1_000_000_007, -1, -9, -10, -474_600,
                      Int64.max, Int64.max - 1, Int64.min, Int64.min + 1] as [Int64])
    func integersAreWrittenAsTheirDecimalDigits(_ value: Int64) {
        #expect(JSONValue.int(value).jsonText == String(value))
        #expect(JSONValue.array([.int(value), .int(value)]).jsonText == "[\(value),\(value)]")
    }
}

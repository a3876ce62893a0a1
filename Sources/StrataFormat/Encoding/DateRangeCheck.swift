import Foundation

extension RecordEncoder {
    /// The error for a record holding a date outside ``DateParsing/storableRange``, naming the
    /// top-level field whose value holds it: such a date would export as text no import reads.
    ///
    /// Found after encoding, from the bytes, so that writing dates stays one range check; the
    /// field is found by the one walk of the record map (``RecordCursor``).
    static func dateOutOfRange(_ date: (offset: Int, seconds: Double), in bytes: [UInt8], fields: FieldTable) -> StrataError {
        let field = RecordCursor.field(holding: date.offset, in: CBORReader(bytes: bytes)).flatMap(fields.name(for:))
        let place = field.map { "the field '\($0)' holds" } ?? "it holds"
        return StrataError(.invalidValue,
                           "\(place) a date out of range (\(date.seconds) seconds since 1970; dates are \(DateParsing.storableRangeDescription))",
                           field: field)
    }
}

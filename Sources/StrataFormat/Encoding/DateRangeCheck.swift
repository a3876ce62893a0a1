import Foundation

extension RecordEncoder {
    /// The error for a record holding a date outside ``DateParsing/storableRange``, naming the
    /// top-level field whose value holds it: such a date would export as text no import reads.
    ///
    /// Found after encoding, from the bytes, so that writing dates stays one range check.
    static func dateOutOfRange(_ date: (offset: Int, seconds: Double), in bytes: [UInt8], fields: FieldTable) -> StrataError {
        var field: String?
        let reader = CBORReader(bytes: bytes)
        var offset = 0
        if let map = try? reader.readHead(at: &offset), map.major == .map {
            for _ in 0..<map.argument {
                guard let key = try? reader.readHead(at: &offset) else { break }
                let start = offset
                guard (try? reader.skipItem(at: &offset)) != nil else { break }
                if (start..<offset).contains(date.offset) {
                    field = fields.name(for: Int(key.argument))
                    break
                }
            }
        }
        let place = field.map { "the field '\($0)' holds" } ?? "it holds"
        return StrataError(.invalidValue,
                           "\(place) a date out of range (\(date.seconds) seconds since 1970; dates are \(DateParsing.storableRangeDescription))",
                           field: field)
    }
}

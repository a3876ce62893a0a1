import Foundation

/// Dates from JSON values: ISO 8601 text and Unix timestamps, without `DateFormatter` (which
/// is slow per call and not thread-safe to share).
package enum DateParsing {
    /// Parses `YYYY-MM-DD`, optionally followed by `T` (or a space) and `HH:MM`, `:SS`, a fraction
    /// of any length, and a zone: `Z`, `±HH:MM`, `±HHMM` or `±HH`. No zone means UTC.
    package static func iso8601(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes in
            var cursor = ByteCursor(bytes: bytes)
            return cursor.iso8601()
        }
    }

    /// ``iso8601(_:)`` of UTF-8 bytes.
    static func iso8601(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var cursor = ByteCursor(bytes: bytes)
        return cursor.iso8601()
    }

    /// ``iso8601(_:)`` of UTF-8 bytes when the date is in ``storableRange``; nil otherwise, so
    /// that the general path reports it.
    package static func iso8601InRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        iso8601(bytes).flatMap { storableRange.contains($0) ? $0 : nil }
    }

    /// The dates Strata stores, in seconds since 1970: years 0000 through 9999 (`Date.distantPast`
    /// is in year 0), what ISO 8601's four-digit years write, so that every stored date exports
    /// as text the import reads back.
    static let storableRange: Range<Double> = -62_167_219_200 ..< 253_402_300_800

    /// ``storableRange`` for messages.
    static let storableRangeDescription = "0000-01-01T00:00:00Z through 9999-12-31T23:59:59Z"

    /// A reading position in UTF-8 bytes.
    private struct ByteCursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var atEnd: Bool { position >= bytes.count }
        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        @inline(__always)
        mutating func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[position]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                position += 1
            }
            return value
        }

        @inline(__always)
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard current == UInt8(character.value) else { return false }
            position += 1
            return true
        }

        mutating func iso8601() -> Double? {
            guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2),
                  (1...12).contains(month), (1...DateParsing.daysIn(month, year)).contains(day) else { return nil }
            var seconds = Double(DateParsing.daysFromCivil(year, month, day)) * 86_400
            guard let separator = current else { return seconds }
            guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else { return nil }
            position += 1
            guard let hour = digits(2), take(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            seconds += Double(hour * 3600 + minute * 60)
            if take(":") {
                guard let second = digits(2), second <= 60 else { return nil }
                seconds += Double(second)
                if take(".") || take(",") {
                    // The fraction as an integer over a power of ten: exact for up to 15 digits.
                    var numerator = 0.0, denominator = 1.0, count = 0
                    while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                        if count < 15 {
                            numerator = numerator * 10 + Double(byte - UInt8(ascii: "0"))
                            denominator *= 10
                        }
                        count += 1
                        position += 1
                    }
                    guard count > 0 else { return nil }
                    seconds += numerator / denominator
                }
            }
            guard let zone = current else { return seconds }
            position += 1
            switch zone {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                return atEnd ? seconds : nil
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let hours = digits(2), hours < 24 else { return nil }
                var minutes = 0
                if !atEnd {
                    _ = take(":")
                    guard let value = digits(2), value < 60, atEnd else { return nil }
                    minutes = value
                }
                let offset = Double(hours * 3600 + minutes * 60)
                return zone == UInt8(ascii: "+") ? seconds - offset : seconds + offset
            default:
                return nil
            }
        }
    }

    /// `seconds` as ISO 8601 text in UTC (`2024-01-31T10:00:00Z`, milliseconds when it has a
    /// fraction), in the proleptic Gregorian calendar ``iso8601(_:)`` reads (Foundation's
    /// formatter switches to the Julian calendar before 1582); nil outside ``storableRange``.
    package static func iso8601Text(_ seconds: Double) -> String? {
        guard storableRange.contains(seconds) else { return nil }
        let whole = seconds.rounded(.down)
        let days = Int((whole / 86_400).rounded(.down))
        let secondOfDay = Int(whole) - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = String(repeating: "0", count: max(0, 4 - String(year).count)) + "\(year)-\(two(month))-\(two(day))"
        text += "T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if whole != seconds {
            let milliseconds = min(999, Int(((seconds - whole) * 1000).rounded(.down)))
            text += "." + String(repeating: "0", count: 3 - String(milliseconds).count) + "\(milliseconds)"
        }
        return text + "Z"
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

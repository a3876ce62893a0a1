import Foundation

/// Dates from JSON values: ISO 8601 text and Unix timestamps, without `DateFormatter` (which
/// costs microseconds a call and is not thread-safe to share).
enum DateParsing {
    /// Seconds since 1970 of `value` read by `format`, or nil when it is not such a date.
    static func seconds(_ value: JSONValue, format: DateFormat) -> Double? {
        switch (value, format) {
        case (.string(let text), .automatic):
            return iso8601(text) ?? Double(text).map(automaticNumber)
        case (.string(let text), .iso8601):
            return iso8601(text)
        case (.string(let text), .secondsSince1970):
            return Double(text)
        case (.string(let text), .millisecondsSince1970):
            return Double(text).map { $0 / 1000 }
        case (.int(let integer), _):
            return number(Double(integer), format)
        case (.double(let double), _):
            return number(double, format)
        default:
            return nil
        }
    }

    private static func number(_ value: Double, _ format: DateFormat) -> Double? {
        switch format {
        case .automatic: automaticNumber(value)
        case .iso8601: nil
        case .secondsSince1970: value
        case .millisecondsSince1970: value / 1000
        }
    }

    /// Seconds, or milliseconds when the magnitude is above 100 billion (year 5138 in seconds,
    /// March 1973 in milliseconds).
    private static func automaticNumber(_ value: Double) -> Double {
        abs(value) > 100_000_000_000 ? value / 1000 : value
    }

    /// Parses `YYYY-MM-DD`, optionally followed by `T` (or a space) and `HH:MM`, `:SS`, a fraction
    /// of any length, and a zone: `Z`, `±HH:MM`, `±HHMM` or `±HH`. No zone means UTC.
    static func iso8601(_ text: String) -> Double? {
        var utf8 = text.utf8[...]
        guard let year = digits(&utf8, 4), take(&utf8, "-"), let month = digits(&utf8, 2), take(&utf8, "-"),
              let day = digits(&utf8, 2), (1...12).contains(month), (1...daysIn(month, year)).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        guard let separator = utf8.first else { return seconds }
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else { return nil }
        utf8.removeFirst()
        guard let hour = digits(&utf8, 2), take(&utf8, ":"), let minute = digits(&utf8, 2), hour < 24, minute < 60 else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if take(&utf8, ":") {
            guard let second = digits(&utf8, 2), second <= 60 else { return nil }
            seconds += Double(second)
            if take(&utf8, ".") || take(&utf8, ",") {
                var fraction = 0.0, scale = 0.1, count = 0
                while let byte = utf8.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    fraction += Double(byte - UInt8(ascii: "0")) * scale
                    scale /= 10
                    count += 1
                    utf8.removeFirst()
                }
                guard count > 0 else { return nil }
                seconds += fraction
            }
        }
        guard let zone = utf8.first else { return seconds }
        utf8.removeFirst()
        switch zone {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            return utf8.isEmpty ? seconds : nil
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let hours = digits(&utf8, 2), hours < 24 else { return nil }
            var minutes = 0
            if !utf8.isEmpty {
                _ = take(&utf8, ":")
                guard let value = digits(&utf8, 2), value < 60, utf8.isEmpty else { return nil }
                minutes = value
            }
            let offset = Double(hours * 3600 + minutes * 60)
            return zone == UInt8(ascii: "+") ? seconds - offset : seconds + offset
        default:
            return nil
        }
    }

    private static func digits(_ text: inout Substring.UTF8View, _ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let byte = text.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            text.removeFirst()
        }
        return value
    }

    private static func take(_ text: inout Substring.UTF8View, _ character: Unicode.Scalar) -> Bool {
        guard text.first == UInt8(character.value) else { return false }
        text.removeFirst()
        return true
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
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

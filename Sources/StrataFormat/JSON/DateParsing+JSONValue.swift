extension DateParsing {
    /// Seconds since 1970 of `value` read by `format`, or nil when it is not such a date.
    package static func seconds(_ value: JSONValue, format: DateFormat) -> Double? {
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

    static func number(_ value: Double, _ format: DateFormat) -> Double? {
        switch format {
        case .automatic: automaticNumber(value)
        case .iso8601: nil
        case .secondsSince1970: value
        case .millisecondsSince1970: value / 1000
        }
    }

    /// Seconds, or milliseconds when the magnitude is above 100 billion (year 5138 in seconds,
    /// March 1973 in milliseconds).
    static func automaticNumber(_ value: Double) -> Double {
        abs(value) > 100_000_000_000 ? value / 1000 : value
    }
}

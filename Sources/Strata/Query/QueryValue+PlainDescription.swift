import Foundation

extension QueryValue {
    /// The value as a person reads it in a message: strings without quotes, dates in ISO 8601.
    var plainDescription: String {
        switch self {
        case .string(let value): value
        case .date(let value): value.formatted(.iso8601)
        default: explained
        }
    }
}

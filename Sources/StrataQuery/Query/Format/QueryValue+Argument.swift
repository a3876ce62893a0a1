import Foundation

extension QueryValue {
    /// Converts a format argument (what a `%@` stands for) to a value, or throws `.invalidQuery`
    /// naming the argument's type.
    ///
    /// `Bool` is checked before the integers because Foundation can present a Boolean as a number;
    /// unsigned values above `Int64.max` become ``QueryValue/uint(_:)`` and wider ones ``QueryValue/wideInt(_:)``; arrays become lists in order,
    /// sets become lists sorted by ``QueryValueOrder`` so equal sets parse to equal predicates.
    ///
    /// ```swift
    /// try QueryValue(argument: 13)          // .int(13)
    /// try QueryValue(argument: ["a", "b"])  // .list([.string("a"), .string("b")])
    /// ```
    package init(argument: any Sendable) throws(StrataError) {
        self = try Self.converting(argument, depth: 0)
    }

    private static func converting(_ argument: Any, depth: Int) throws(StrataError) -> QueryValue {
        guard depth <= 100 else {
            throw StrataError(.invalidQuery, "argument nests collections deeper than 100 levels")
        }
        if let optional = argument as? any OptionalArgument {
            guard let wrapped = optional.wrappedArgument else { return .null }
            return try converting(wrapped, depth: depth + 1)
        }
        switch argument {
        case let value as QueryValue: return value
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Character: return .string(String(value))
        case let value as Bool: return .bool(value)
        case let value as any BinaryInteger: return try integer(value)
        case let value as any BinaryFloatingPoint: return .double(Double(value))
        case let value as Decimal: return .double(NSDecimalNumber(decimal: value).doubleValue)
        case let value as Date: return .date(value)
        case let value as UUID: return .uuid(value)
        case let value as Data: return .data(value)
        case let value as URL: return .string(value.absoluteString)
        case is NSNull: return .null
        case let value as NSNumber:
            // Only reachable for NSNumber objects built explicitly: keep integral values exact.
            let integer = value.int64Value
            return Double(integer) == value.doubleValue ? .int(integer) : .double(value.doubleValue)
        case let value as any SetArgument:
            let elements = try list(value.setElements, depth: depth)
            return .list(elements.sorted { QueryValueOrder.compare($0, $1, options: []) < 0 })
        case let value as [Any]:
            return .list(try list(value, depth: depth))
        default:
            throw StrataError(
                .invalidQuery,
                "an argument of type \(String(describing: type(of: argument))) cannot be a query value "
                    + "(use a string, number, Bool, Date, UUID, Data, URL, nil or an array of those)")
        }
    }

    private static func list(_ elements: [Any], depth: Int) throws(StrataError) -> [QueryValue] {
        var values: [QueryValue] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try converting(element, depth: depth + 1)) }
        return values
    }

    private static func integer(_ value: some BinaryInteger) throws(StrataError) -> QueryValue {
        guard value >= Int128.min, value.magnitude <= UInt128.max else {
            throw StrataError(.invalidQuery, "the integer argument \(value) does not fit in 128 bits")
        }
        return WideInteger(value).queryValue
    }
}

/// Lets a type-erased argument reveal that it is an `Optional`, so `nil` becomes `.null`.
private protocol OptionalArgument {
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    fileprivate var wrappedArgument: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

/// Lets a type-erased `Set` of any element type give up its elements.
private protocol SetArgument {
    var setElements: [Any] { get }
}

extension Set: SetArgument {
    fileprivate var setElements: [Any] { map { $0 } }
}

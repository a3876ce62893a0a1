import Foundation
import Testing
@testable import Strata

@Suite struct QueryValueArgumentTests {
    @Test(arguments: [
        ("a string", "x" as any Sendable, QueryValue.string("x")),
        ("a substring", "xyz".prefix(2), .string("xy")),
        ("true", true, .bool(true)),
        ("false", false, .bool(false)),
        ("an Int", 13, .int(13)),
        ("an Int8", Int8(-8), .int(-8)),
        ("an Int32", Int32(32), .int(32)),
        ("a UInt16", UInt16(16), .int(16)),
        ("a small UInt64", UInt64(7), .int(7)),
        ("a huge UInt64", UInt64.max, .uint(.max)),
        ("a Double", 2.5, .double(2.5)),
        ("a Float", Float(0.5), .double(0.5)),
        ("a Decimal", Decimal(string: "1.25")!, .double(1.25)),
        ("a Date", Date(timeIntervalSinceReferenceDate: 5), .date(Date(timeIntervalSinceReferenceDate: 5))),
        ("a UUID", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
         .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
        ("Data", Data([1, 2]), .data(Data([1, 2]))),
        ("a URL", URL(string: "https://example.com/a")!, .string("https://example.com/a")),
        ("nil", String?.none, .null),
        ("a wrapped optional", Int?.some(4), .int(4)),
        ("NSNull", NSNull(), .null),
        ("an array", [1, 2], .list([.int(1), .int(2)])),
        ("a mixed array", ["a", 1] as [any Sendable], .list([.string("a"), .int(1)])),
        ("a set, sorted", Set([3, 1, 2]), .list([.int(1), .int(2), .int(3)])),
        ("a nested array", [[true]], .list([.list([.bool(true)])])),
        ("a QueryValue", QueryValue.int(9), .int(9)),
    ])
    func argumentsConvertToValues(_ label: String, argument: any Sendable, expected: QueryValue) throws {
        #expect(try QueryValue(argument: argument) == expected, "\(label)")
    }

    @Test(arguments: [
        (OpaqueReference() as any Sendable, "OpaqueReference"),
        (["k": 1], "Dictionary<String, Int>"),
        ([OpaqueReference()], "OpaqueReference"),
    ])
    func unsupportedArgumentsAreRejectedByTypeName(argument: any Sendable, typeName: String) {
        #expect {
            try QueryValue(argument: argument)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .invalidQuery
                && error?.message.contains("an argument of type \(typeName) cannot be a query value") == true
        }
    }
}

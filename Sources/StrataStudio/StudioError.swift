import Foundation
import Hummingbird
import Strata

/// A request the studio refuses or could not answer, sent as a JSON body
/// `{"error": {"code", "message", "column"?}}` with its HTTP status: what failed and where,
/// never a crash and never an HTML page.
public struct StudioError: Error, HTTPResponseError, Sendable {
    /// The HTTP status of the answer.
    public var status: HTTPResponse.Status
    /// A short word for the failure (`unauthorized`, `badHost`, `readOnly`, `bodyTooLarge`,
    /// `invalidQuery`, `notFound`, …; a store error's code).
    public var code: String
    /// What failed, for people.
    public var message: String
    /// For a predicate that does not parse: the 1-based column the message names, as the tool
    /// reports it (`at column N`).
    public var column: Int?

    /// An error with this status, code and message.
    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, column: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.column = column
    }

    /// A store error as the studio answers it: not found is 404, a query or value that is wrong
    /// is 400 (with the column of a predicate's parse error), a time limit is 408, anything else 500.
    public init(_ error: StrataError) {
        let status: HTTPResponse.Status
        switch error.code {
        case .notFound: status = .notFound
        case .invalidQuery, .invalidValue, .typeMismatch, .missingField, .unknownField, .duplicateKey, .malformedJSON, .invalidRecord:
            status = .badRequest
        case .uniqueViolation, .deleteDenied: status = .conflict
        case .permissionDenied, .readOnlyReplica: status = .forbidden
        case .timeout: status = .requestTimeout
        default: status = .internalServerError
        }
        self.init(status, error.code.name, error.message, column: Self.column(in: error.message))
    }

    /// The column a parse error's message names (`… at column 12 …`), the first one given.
    static func column(in message: String) -> Int? {
        guard let range = message.range(of: "at column ") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// The error as its JSON body.
    var json: JSONValue {
        var members = [JSONMember(key: "code", value: .string(code)), JSONMember(key: "message", value: .string(message))]
        if let column { members.append(JSONMember(key: "column", value: .int(Int64(column)))) }
        return .object([JSONMember(key: "error", value: .object(members))])
    }

    /// The error as the studio's answer: its status and the JSON body ``StudioError`` describes.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        StudioResponse.json(json, status: status)
    }

    /// Any error a route threw, as the studio answers it.
    static func answering(_ error: any Error) -> StudioError {
        switch error {
        case let error as StudioError: error
        case let error as StrataError: StudioError(error)
        case let error as HTTPError: StudioError(error.status, "http", error.body ?? error.status.reasonPhrase)
        default: StudioError(.internalServerError, "internal", String(describing: error))
        }
    }
}

/// The studio's answers: JSON with no caching, text with its type.
enum StudioResponse {
    /// `value` as a JSON answer.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        text(value.jsonText, type: "application/json; charset=utf-8", status: status)
    }

    /// `text` as an answer of `type`.
    static func text(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type, .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

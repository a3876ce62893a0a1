@_spi(Format) import StrataFormat
import Foundation

/// The change feed as JSON Lines: one change per line, what `strata changes` writes and
/// `strata replicate -` reads, and what other systems consume.
///
/// Each line is one object with these members, in this order:
///
/// | member      | value                                                                                  |
/// |-------------|----------------------------------------------------------------------------------------|
/// | `sequence`  | the commit's sequence number (an integer, from 1, increasing by one per commit)        |
/// | `time`      | the commit's time, ISO 8601 in UTC                                                     |
/// | `position`  | the change's place in its commit, from 1                                               |
/// | `changes`   | how many changes the commit has: its last line has `position` == `changes`            |
/// | `entity`    | the entity (record type) changed                                                       |
/// | `operation` | `insert`, `update`, `delete`, `deleteAll` or `schema`                                  |
/// | `key`       | the primary key's value (a number, string, …; an array for a compound key; null for `deleteAll` and `schema`) |
/// | `record`    | the record after the change as JSON (as `strata export` writes it; JSON keys with `jsonKeys`), null for deletes; for `schema`, the entity's catalog entry |
/// | `storedKey` | the stored primary key, base64 (what a replica writes)                                 |
/// | `stored`    | the stored record, base64 of its CBOR (what a replica writes), null for deletes        |
/// | `origin`    | the source: `{"store": identity, "epoch": the log's epoch, "beganEmpty": bool}` (``ChangeLogOrigin``), which a replica checks |
///
/// A consumer that wants rows reads `entity`, `operation`, `key` and `record`; a replica applies
/// `storedKey` and `stored`, byte for byte, once a commit's last line has arrived.
public enum ChangeFeedLines {
    /// Appends the lines of `commit` to `output`, each ending in a newline; records are rendered
    /// with the fields of `transaction`'s entities (their JSON keys with `jsonKeys`).
    public static func append(_ commit: LoggedCommit, from transaction: ReadTransaction, jsonKeys: Bool = false,
                              to output: inout [UInt8]) throws {
        try forEachObject(commit, from: transaction, jsonKeys: jsonKeys) { object in
            object.appendJSON(to: &output)
            output.append(UInt8(ascii: "\n"))
        }
    }

    /// Calls `body` with the object of each change of `commit`, in order.
    static func forEachObject(_ commit: LoggedCommit, from transaction: ReadTransaction, jsonKeys: Bool,
                              _ body: (JSONValue) throws -> Void) throws {
        var renamed: [String: [String: String]] = [:]
        let time = Array(CBORReader.isoText(commit.time).utf8)
        let origin: JSONValue = commit.origin.map { origin in
            .object([JSONMember(key: "store", value: .string(origin.store)), JSONMember(key: "epoch", value: .string(origin.epoch)),
                     JSONMember(key: "beganEmpty", value: .bool(origin.beganEmpty))])
        } ?? .null
        for (index, change) in commit.changes.enumerated() {
            var members: [JSONMember] = [
                JSONMember(key: "sequence", value: .wideInt(WideInteger(commit.sequence))),
                JSONMember(key: "time", value: .string(String(decoding: time, as: UTF8.self))),
                JSONMember(key: "position", value: .int(Int64(index + 1))),
                JSONMember(key: "changes", value: .int(Int64(commit.changes.count))),
                JSONMember(key: "entity", value: .string(change.entity)),
                JSONMember(key: "operation", value: .string(change.operation.description)),
            ]
            var key: JSONValue = .null, record: JSONValue = .null
            switch change.operation {
            case .schema:
                if let bytes = change.bytes, let parsed = try? Self.object(bytes) { record = parsed }
            case .deleteAll:
                break
            case .insert, .update, .delete:
                key = try Self.keyValue(change.key, entity: change.entity)
                if let bytes = change.bytes, let context = try transaction.context(named: change.entity) {
                    let stored = try StoredRecord(key: change.key, bytes: bytes, fields: context.decoding.fields, entity: change.entity)
                    if jsonKeys, renamed[change.entity] == nil {
                        renamed[change.entity] = try transaction.entityDescription(named: change.entity, sampleLimit: StoredFieldSample.lookupRecords).exportedKeys
                    }
                    record = stored.jsonObject(renaming: renamed[change.entity] ?? [:])
                }
            }
            members.append(JSONMember(key: "key", value: key))
            members.append(JSONMember(key: "record", value: record))
            members.append(JSONMember(key: "storedKey", value: .string(Data(change.key).base64EncodedString())))
            members.append(JSONMember(key: "stored", value: change.bytes.map { .string(Data($0).base64EncodedString()) } ?? .null))
            members.append(JSONMember(key: "origin", value: origin))
            try body(.object(members))
        }
    }

    /// Appends the changes of `commit` in the CBOR form: the objects of ``append(_:from:jsonKeys:to:)``
    /// as a CBOR sequence (RFC 8742), one map per change, the same members with the same values.
    public static func appendCBOR(_ commit: LoggedCommit, from transaction: ReadTransaction, jsonKeys: Bool = false,
                                  to output: inout [UInt8]) throws {
        try forEachObject(commit, from: transaction, jsonKeys: jsonKeys) { object in
            var writer = CBORWriter(capacity: 256)
            ValueConverter.writeAny(object, into: &writer)
            output.append(contentsOf: writer.bytes)
        }
    }

    /// Where the CBOR item that starts at `start` of `bytes` ends, or nil while it is not whole there
    /// (a reader of the CBOR form waits for more bytes; at the end of its input, such a rest is a
    /// cut or damaged item).
    public static func cborItemEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        var offset = start
        return (try? CBORReader(bytes: bytes).skipItem(at: &offset)) != nil ? offset : nil
    }

    /// The one JSON object `bytes` hold.
    static func object(_ bytes: [UInt8]) throws(StrataError) -> JSONValue {
        guard bytes.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "{") else {
            throw StrataError(.malformedJSON, "expected one JSON object")
        }
        var parser = JSONParser(source: InMemoryByteSource(bytes))
        guard let value = try parser.nextRecord(rootKey: nil), try parser.nextRecord(rootKey: nil) == nil else {
            throw StrataError(.malformedJSON, "expected one JSON object")
        }
        return value
    }

    /// The JSON value of a stored primary key: its value, or an array of values for a compound key.
    static func keyValue(_ key: [UInt8], entity: String) throws -> JSONValue {
        do throws(StrataError) { return try OrderedKey.primaryKeyValue(from: key).jsonValue } catch {
            throw StrataError(.corruptRecord, "\(entity): a logged primary key does not decode (\(key.hex)): \(error.message)", entity: entity)
        }
    }

    /// Reads feed lines back into commits: give it each line in order; it returns a commit once
    /// the commit's last line has arrived. A line that is not a well-formed feed line, or one
    /// out of order, throws `.malformedJSON` or `.invalidRecord` naming its line number.
    public struct Reader {
        private var sequence: UInt64?
        private var time = Date(timeIntervalSince1970: 0)
        private var origin: ChangeLogOrigin?
        private var expected = 0
        private var changes: [LoggedChange] = []
        /// The line number of the next line, from 1.
        public private(set) var lineNumber = 1

        /// A reader expecting the first line of a commit.
        public init() {}

        /// Whether a commit has lines read but not its last one (a feed that ends here ends mid-commit).
        public var isInsideCommit: Bool { sequence != nil }

        /// Reads the next line (without its newline): the commit when this was its last line, nil when more
        /// of it follows.
        public mutating func read(line: some Collection<UInt8>) throws -> LoggedCommit? {
            let value: JSONValue
            do throws(StrataError) { value = try ChangeFeedLines.object(Array(line)) } catch {
                defer { lineNumber += 1 }
                throw StrataError(.malformedJSON, "change feed line \(lineNumber) is not JSON: \(error.message)", cause: error)
            }
            return try read(value)
        }

        /// Reads one item of the CBOR form (``ChangeFeedLines/appendCBOR(_:from:jsonKeys:to:)``).
        public mutating func read(cborItem bytes: [UInt8]) throws -> LoggedCommit? {
            var offset = 0
            let value: JSONValue
            do throws(CBORReadFailure) {
                value = try CBORReader(bytes: bytes).jsonValue(at: &offset)
                guard offset == bytes.count else { throw CBORReadFailure.corrupt(offset: offset, reason: "bytes after the item") }
            } catch {
                defer { lineNumber += 1 }
                throw StrataError(.corruptRecord, "change feed item \(lineNumber) is not CBOR: \(error)", cause: error)
            }
            return try read(value)
        }

        /// Reads one change given as its object (a JSON line or a CBOR item, parsed).
        private mutating func read(_ value: JSONValue) throws -> LoggedCommit? {
            defer { lineNumber += 1 }
            let number = lineNumber
            func invalid(_ reason: String) -> StrataError {
                StrataError(.invalidRecord, "change feed line \(number): \(reason)")
            }
            guard case .object = value else { throw invalid("not an object") }
            guard case .wideInt(let wide)? = Self.integer(value["sequence"]), let lineSequence = wide.exactly(UInt64.self),
                  case .string(let timeText)? = value["time"], let timeSeconds = DateParsing.iso8601(timeText),
                  case .wideInt(let positionValue)? = Self.integer(value["position"]), let position = positionValue.exactly(Int.self),
                  case .wideInt(let countValue)? = Self.integer(value["changes"]), let count = countValue.exactly(Int.self), count >= 1,
                  case .string(let entity)? = value["entity"], !entity.isEmpty,
                  case .string(let operationName)? = value["operation"],
                  let operation = [LoggedChange.Operation.insert, .update, .delete, .deleteAll, .schema].first(where: { $0.description == operationName }),
                  case .string(let keyText)? = value["storedKey"], let key = Data(base64Encoded: keyText) else {
                throw invalid("a member is missing or of the wrong type (sequence, time, position, changes, entity, operation, storedKey)")
            }
            var origin: ChangeLogOrigin?
            switch value["origin"] {
            case .object?:
                guard case .string(let store)? = value["origin"]?["store"], case .string(let epoch)? = value["origin"]?["epoch"],
                      case .bool(let beganEmpty)? = value["origin"]?["beganEmpty"] else {
                    throw invalid("'origin' is not an object of store, epoch and beganEmpty")
                }
                origin = ChangeLogOrigin(store: store, epoch: epoch, beganEmpty: beganEmpty)
            case .null?, nil: origin = nil
            default: throw invalid("'origin' is not an object or null")
            }
            var bytes: [UInt8]?
            switch value["stored"] {
            case .string(let text)?:
                guard let decoded = Data(base64Encoded: text) else { throw invalid("'stored' is not base64") }
                bytes = Array(decoded)
            case .null?, nil: bytes = nil
            default: throw invalid("'stored' is not base64 text or null")
            }
            if let sequence {
                guard origin == self.origin else {
                    throw invalid("commit \(sequence) changes its origin at change \(position)")
                }
                guard lineSequence == sequence, position == changes.count + 1, count == expected else {
                    throw invalid("commit \(sequence) ends after \(changes.count) of its \(expected) changes; this line is change \(position) of commit \(lineSequence)")
                }
            } else {
                guard position == 1 else { throw invalid("change \(position) of commit \(lineSequence) without the changes before it") }
                sequence = lineSequence
                self.origin = origin
                time = Date(timeIntervalSince1970: timeSeconds)
                expected = count
            }
            changes.append(LoggedChange(entity: entity, operation: operation, key: Array(key), bytes: bytes))
            guard position == count else { return nil }
            defer { sequence = nil; changes = [] }
            return LoggedCommit(sequence: lineSequence, time: time, changes: changes, origin: origin)
        }

        private static func integer(_ value: JSONValue?) -> JSONValue? {
            switch value {
            case .int(let number)?: .wideInt(WideInteger(number))
            case .wideInt?: value
            default: nil
            }
        }
    }
}

extension QueryValue {
    /// The value as JSON, as an export writes it (dates as ISO 8601 text, UUIDs as text, data as base64).
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .uint(let value): .wideInt(WideInteger(value))
        case .wideInt(let value): .wideInt(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .date(let value): .string(CBORReader.isoText(value))
        case .uuid(let value): .string(value.uuidString)
        case .data(let value): .string(value.base64EncodedString())
        case .list(let values): .array(values.map(\.jsonValue))
        }
    }
}

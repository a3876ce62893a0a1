/// The catalog's JSON entries read with the store's own parser (``JSONParser``) into the values they
/// hold, with no `JSONDecoder` and no `Decodable` machinery: a store's opening reads every entity
/// entry, and each type's first generic decode costs the Swift runtime a scan of every protocol
/// conformance record in the program, which made decoding most of the time a one-shot command
/// spends opening a store.
///
/// The entries are still written by `JSONEncoder` from the types' `Encodable` forms
/// (``Catalog/save(_:in:catalog:)``), and read as `JSONDecoder` read them: unknown members are
/// ignored; an optional member that is absent or `null` is nil, a required one is an error; of a
/// repeated member name the first counts; an integer may be written with a fraction or an exponent
/// when its value is whole (`2.0`, `1e2`). A test holds the two equal on many catalog entries
/// (`CatalogJSONTests`). Errors name the member's path (`indexes[0].isUnique`).
package struct CatalogValue {
    /// The value as parsed.
    let json: JSONValue
    /// Where it is in its entry, made into text (``path``) only when it is needed.
    private let place: CatalogPlace

    /// Where it is in its entry, for messages: `fields`, `indexes[2].name`; empty at the top.
    var path: String { place.text }

    /// The whole JSON document `bytes` (nothing but whitespace after its value).
    package init(document bytes: [UInt8]) throws {
        var parser = JSONParser(source: InMemoryByteSource(bytes))
        json = try parser.parseValue(depth: 0)
        try parser.expectEnd()
        place = CatalogPlace(container: "", member: "", index: 0)   // the top: no path
    }

    init(_ json: JSONValue, _ place: CatalogPlace) {
        self.json = json
        self.place = place
    }

    /// An error saying that the value here is not `expected`.
    func mismatch(_ expected: String) -> StrataError {
        CatalogValue.failure(path, "expected \(expected), found \(json.kind)")
    }

    static func failure(_ path: String, _ message: String) -> StrataError {
        StrataError(.incompatibleStore, path.isEmpty ? message : "\(path): \(message)")
    }

    func string() throws -> String {
        guard case .string(let text) = json else { throw mismatch("a string") }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let value) = json else { throw mismatch("true or false") }
        return value
    }

    /// An `Int`: an integer literal, or a number with a fraction or exponent whose value is whole.
    package func int() throws -> Int {
        switch json {
        case .int(let value): return Int(value)
        case .double(let value): if let whole = Int(exactly: value) { return whole }
        default: break
        }
        throw mismatch("an integer")
    }

    /// A `Double`: any number (`JSONDecoder` reads an integer too large for `Int64` as the nearest
    /// double).
    func double() throws -> Double {
        switch json {
        case .int(let value): return Double(value)
        case .double(let value): return value
        case .wideInt(let value): if let double = Double(value.description) { return double }
        default: break
        }
        throw mismatch("a number")
    }

    /// A `UInt8`, as ``int()`` reads an integer.
    func byte() throws -> UInt8 {
        switch json {
        case .int(let value): if let byte = UInt8(exactly: value) { return byte }
        case .double(let value): if let byte = UInt8(exactly: value) { return byte }
        default: break
        }
        throw mismatch("an integer from 0 to 255")
    }

    /// The case of a string-valued enum the string names.
    func named<Value: RawRepresentable>(_ type: Value.Type) throws -> Value where Value.RawValue == String {
        let text = try string()
        guard let value = Value(rawValue: text) else {
            throw CatalogValue.failure(path, "'\(text)' is not one of the values this version of Strata knows here")
        }
        return value
    }

    package func object() throws -> CatalogObject {
        guard case .object(let members) = json else { throw mismatch("an object") }
        return CatalogObject(members: members, path: path)
    }

    func array<Element>(_ element: (CatalogValue) throws -> Element) throws -> [Element] {
        guard case .array(let values) = json else { throw mismatch("an array") }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        let container = path
        for (index, value) in values.enumerated() {
            elements.append(try element(CatalogValue(value, CatalogPlace(container: container, member: nil, index: index))))
        }
        return elements
    }

    /// An object read as a dictionary keyed by its member names (the first of a repeated name).
    func dictionary<Value>(_ element: (CatalogValue) throws -> Value) throws -> [String: Value] {
        var dictionary: [String: Value] = [:]
        let container = path
        for member in try object().distinctMembers {
            dictionary[member.key] = try element(CatalogValue(member.value, CatalogPlace(container: container, member: member.key, index: 0)))
        }
        return dictionary
    }

    /// A ``JSONValue`` as its `Codable` form reads one through `JSONDecoder`: a number that is a
    /// whole value in `Int64`'s range is `.int` (`2.0` too), any other number `.double`; an
    /// object's members in key order.
    func anyValue() throws -> JSONValue {
        switch json {
        case .null, .bool, .int, .string: return json
        case .double(let value):
            if let whole = Int64(exactly: value) { return .int(whole) }
            return json
        case .wideInt(let value):
            guard let double = Double(value.description) else { throw mismatch("a number") }
            return .double(double)
        case .array:
            return .array(try array { try $0.anyValue() })
        case .object:
            var members: [JSONMember] = []
            let container = path
            for member in try object().distinctMembers {
                let place = CatalogPlace(container: container, member: member.key, index: 0)
                members.append(JSONMember(key: member.key, value: try CatalogValue(member.value, place).anyValue()))
            }
            return .object(members.sorted { $0.key < $1.key })
        }
    }
}

/// A JSON object of a catalog entry, whose members are read by name.
package struct CatalogObject {
    let members: [JSONMember]
    let path: String

    /// The path of the member `key` of the object at `path`.
    static func path(_ path: String, _ key: String) -> String { CatalogPlace(container: path, member: key, index: 0).text }

    /// The members, the first of each name only.
    var distinctMembers: [JSONMember] {
        var seen = Set<String>()
        return members.filter { seen.insert($0.key).inserted }
    }

    /// The value of the member `key` (its first), or nil when there is none or it is `null`.
    func member(_ key: String) -> CatalogValue? {
        guard let found = members.first(where: { $0.key == key }) else { return nil }
        if case .null = found.value { return nil }
        return CatalogValue(found.value, CatalogPlace(container: path, member: key, index: 0))
    }

    /// The member `key` read by `read`; an error when it is absent or `null`.
    package func required<Value>(_ key: String, _ read: (CatalogValue) throws -> Value) throws -> Value {
        guard let value = member(key) else {
            let present = members.contains { $0.key == key }
            throw CatalogValue.failure(Self.path(path, key), present ? "must not be null" : "is missing")
        }
        return try read(value)
    }

    /// The member `key` read by `read`, or nil when it is absent or `null`.
    func optional<Value>(_ key: String, _ read: (CatalogValue) throws -> Value) throws -> Value? {
        guard let value = member(key) else { return nil }
        return try read(value)
    }
}

/// Where a value is in its entry: the member `member`, or the element `index`, of the container
/// at the path `container`.
struct CatalogPlace {
    let container: String
    let member: String?
    let index: Int

    /// `container.member` or `container[index]` (`member` alone at the top).
    var text: String {
        guard let member else { return "\(container)[\(index)]" }
        return container.isEmpty ? member : "\(container).\(member)"
    }
}

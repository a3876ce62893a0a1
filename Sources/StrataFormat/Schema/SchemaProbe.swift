import Foundation

extension EntityDescription {
    /// The description of a `Record` type: its fields and their types as its `Decodable`
    /// conformance asks for them, its primary key, indexes and JSON keys (``Record/jsonKeys``).
    ///
    /// The fields are found by running the type's `init(from:)` once against a probing decoder
    /// that answers every request with a placeholder value (0, "", the first case of a
    /// `CaseIterable` enum) and notes the key and the type asked for. It runs once per type. A type whose `init(from:)` rejects every placeholder (say, a raw-value enum that
    /// is not `CaseIterable`) cannot be probed: the error names the field; describe such a type
    /// with an explicit ``EntityDescription`` instead.
    public init<T: Record>(_ type: T.Type) throws(StrataError) {
        let recorder = ProbeRecorder()
        do {
            _ = try T(from: ProbeDecoder(recorder: recorder, path: []))
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.invalidValue, "cannot derive the fields of \(T.self) from its Decodable conformance: \(error); describe it with an EntityDescription",
                              entity: T.entityName, cause: error)
        }
        var fields = recorder.fields(at: [])
        let keys = T.jsonKeys.names
        for index in fields.indices { fields[index].jsonKey = keys[fields[index].name] }
        let indexes = T.maintainedIndexes.map { IndexDescription($0.descriptor) }
        self.init(name: T.entityName, primaryKey: T.primaryKeyName, fields: fields, indexes: indexes,
                  relationships: T.relationships.map { RelationshipDescription($0.descriptor) })
        fullTextIndexes = T.fullTextDeclarations
        integerRanges = IntegerRanges(byField: recorder.integerRanges)
    }
}

/// The fields a probe has seen, by container path.
private final class ProbeRecorder {
    /// Fields per keyed container path, in the order asked.
    var fieldsByPath: [[String]: [FieldDescription]] = [:]
    /// The top-level fields of a narrower integer type, with the values they hold.
    var integerRanges: [String: ClosedRange<WideInteger>] = [:]

    func note(_ path: [String], _ name: String, _ type: FieldType, optional: Bool) {
        var fields = fieldsByPath[path] ?? []
        if let existing = fields.firstIndex(where: { $0.name == name }) {
            fields[existing].type = type
        } else {
            fields.append(FieldDescription(name, type, optional: optional))
        }
        fieldsByPath[path] = fields
    }

    /// The fields under `path`, with nested object types filled in from deeper paths.
    func fields(at path: [String]) -> [FieldDescription] {
        (fieldsByPath[path] ?? []).map { field in
            var field = field
            field.type = resolve(field.type, path + [field.name])
            return field
        }
    }

    private func resolve(_ type: FieldType, _ path: [String]) -> FieldType {
        switch type {
        case .object: .object(fields(at: path))
        case .array(let element): .array(resolve(element, path + ["[]"]))
        default: type
        }
    }
}

/// Answers a type's `init(from:)` with placeholders, noting what it asks for.
private struct ProbeDecoder: Decoder {
    let recorder: ProbeRecorder
    /// The container path of this value: field names, "[]" for array elements.
    let path: [String]
    /// What a single-value or unkeyed request turns this value into, reported to the parent.
    let kind = KindBox()

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        kind.type = kind.type ?? .object([])
        return KeyedDecodingContainer(ProbeKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingleValueContainer(decoder: self)
    }

    /// A placeholder `T` for the value at `childPath`, and the field type it was decoded as.
    func probe<T: Decodable>(_ type: T.Type, at childPath: [String]) throws -> (T, FieldType) {
        if let known = ScalarType.swiftType(type, throughOptional: false) { return (known.placeholder as! T, FieldType(known.scalar)) }
        let child = ProbeDecoder(recorder: recorder, path: childPath)
        let fieldType: () -> FieldType = {
            switch child.kind.type {
            case .some(.object) where child.kind.isDictionary: .any
            case .some(let type): type
            case nil: .any
            }
        }
        do {
            return (try T(from: child), fieldType())
        } catch {
            // Enums reject the placeholder raw value; their first case stands in for it.
            if let cases = type as? any CaseIterable.Type, let first = Self.firstCase(cases) as? T {
                return (first, fieldType())
            }
            if let placeholder = Self.zeroedRawEnum(type) { return (placeholder, fieldType()) }
            throw StrataError(.invalidValue,
                "the field '\(childPath.filter { $0 != "[]" }.joined(separator: "."))' of type \(T.self) rejects every placeholder value (\(error)); describe the type with an EntityDescription",
                field: childPath.last, cause: error)
        }
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }

    /// The first case of a raw-value enum without payloads, which is the all-zero bit pattern of
    /// such an enum (its case tag 0): a trivial type of at most 4 bytes that is `RawRepresentable`.
    private static func zeroedRawEnum<T>(_ type: T.Type) -> T? {
        guard type is any RawRepresentable.Type, _isPOD(type), MemoryLayout<T>.size <= 4 else {
            return nil
        }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(1, MemoryLayout<T>.size), alignment: MemoryLayout<T>.alignment)
        defer { pointer.deallocate() }
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        return pointer.load(as: T.self)
    }
}

private final class KindBox {
    var type: FieldType?
    /// The value asked for `allKeys`: a dictionary, not a struct.
    var isDictionary = false
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        decoder.kind.isDictionary = true
        return []
    }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.recorder.note(decoder.path, key.stringValue, .any, optional: true)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try probed(type, key, optional: false) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try probed(type, key, optional: true) }
    // The 128-bit integers have requirements of their own whose default implementations throw.
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try probed(type, key, optional: false) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try probed(type, key, optional: false) }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try probed(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try probed(type, key, optional: true) }

    private func probed<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws -> T {
        let (value, fieldType) = try decoder.probe(type, at: decoder.path + [key.stringValue])
        decoder.recorder.note(decoder.path, key.stringValue, fieldType, optional: optional)
        noteRange(type, key)
        return value
    }

    /// Notes the range of a top-level field of a narrower integer type.
    private func noteRange<T>(_ type: T.Type, _ key: Key) {
        guard decoder.path.isEmpty, let range = IntegerRanges.range(of: type) else { return }
        decoder.recorder.integerRanges[key.stringValue] = range
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        decoder.recorder.note(decoder.path, key.stringValue, .object([]), optional: false)
        let child = ProbeDecoder(recorder: decoder.recorder, path: decoder.path + [key.stringValue])
        return try child.container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        decoder.recorder.note(decoder.path, key.stringValue, .array(.any), optional: false)
        return ProbeUnkeyedContainer(decoder: ProbeDecoder(recorder: decoder.recorder, path: decoder.path + [key.stringValue]))
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// An array of one placeholder element, whose type becomes the array's element type.
private struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    init(decoder: ProbeDecoder) {
        self.decoder = decoder
        decoder.kind.type = .array(.any)
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try probed(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try probed(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try probed(type) }

    private mutating func probed<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, elementType) = try decoder.probe(type, at: decoder.path + ["[]"])
        decoder.kind.type = .array(elementType)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        decoder.kind.type = .array(.object([]))
        return try ProbeDecoder(recorder: decoder.recorder, path: decoder.path + ["[]"]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return ProbeUnkeyedContainer(decoder: ProbeDecoder(recorder: decoder.recorder, path: decoder.path + ["[]"]))
    }

    mutating func superDecoder() throws -> any Decoder { decoder }
}

private struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try probed(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try probed(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try probed(type) }

    private func probed<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, fieldType) = try decoder.probe(type, at: decoder.path)
        decoder.kind.type = fieldType
        return value
    }
}

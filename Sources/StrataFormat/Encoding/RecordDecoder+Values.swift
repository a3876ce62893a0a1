import Foundation

/// A coding key rebuilt from stored data for `codingPath` and error messages.
struct RecordPathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    /// An array position rather than a key.
    var isIndex = false

    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    init(index: Int) {
        self.init(intValue: index)
        isIndex = true
    }
}

extension RecordDecodingState {
    /// Decodes one value at `offset` and moves `offset` past it: directly for the types CBOR has its own
    /// form for, through `T.init(from:)` otherwise.
    func decodeValue<T: Decodable>(
        _: T.Type, at offset: inout Int, parent: Int, component: PathComponent
    ) throws -> T {
        let start = offset
        do throws(CBORReadFailure) {
            if let kind = CBOR.PrimitiveKind(of: T.self) { return try reader.readPrimitive(T.self, kind: kind, at: &offset) }
            try reader.skipItem(at: &offset)
        } catch {
            throw failure(error, parent: parent, component: component, expected: "\(T.self)")
        }
        return try decodeNested(T.self, at: start, parent: parent, component: component)
    }

    /// Runs `T.init(from:)` with this decoder pointed at the value at `offset`.
    private func decodeNested<T: Decodable>(
        _: T.Type, at offset: Int, parent: Int, component: PathComponent
    ) throws -> T {
        guard depth < CBOR.maximumDepth else {
            throw failure(.corrupt(offset: offset, reason: "values nested deeper than \(CBOR.maximumDepth) levels"),
                          parent: parent, component: component, expected: "")
        }
        let saved = (slotOffset, slotParent, slotComponent)
        slotOffset = offset
        slotParent = parent
        slotComponent = component
        depth += 1
        defer {
            depth -= 1
            (slotOffset, slotParent, slotComponent) = saved
        }
        return try T(from: self)
    }

    // MARK: Errors

    /// A `StrataError` for a read failure of the value at `component` of frame `parent`.
    func failure(_ failure: CBORReadFailure, parent: Int, component: PathComponent, expected: String) -> StrataError {
        self.failure(failure, field: pathString(path(parent: parent, component: component)), expected: expected)
    }

    /// A `StrataError` for a read failure of the value of `field` (a path; empty for the record itself).
    func failure(_ failure: CBORReadFailure, field: String, expected: String) -> StrataError {
        switch failure {
        case .corrupt(let offset, let reason):
            let place = field.isEmpty ? "" : " (field '\(field)')"
            return StrataError(
                .corruptRecord, "\(entity) \(recordKey): corrupt record at byte \(offset)\(place): \(reason)",
                entity: entity, field: field.isEmpty ? nil : field, key: recordKey)
        case .mismatch(let offset, _):
            let subject = field.isEmpty ? "the record" : "field '\(field)'"
            return StrataError(
                .typeMismatch,
                "\(entity) \(recordKey): \(subject) holds \(reader.describeItem(at: offset)), expected \(expected)",
                entity: entity, field: field.isEmpty ? nil : field, key: recordKey)
        }
    }

    /// A `.missingField` error for `key` of keyed container `frame`.
    func missing(_ key: some CodingKey, frame: Int) -> StrataError {
        missing(field: pathString(path(parent: self.frame(frame).parent, component: self.frame(frame).component) + [key]))
    }

    /// A `.missingField` error for the field at path `field`.
    func missing(field: String) -> StrataError {
        StrataError(
            .missingField,
            "\(entity) \(recordKey): the stored record has no field '\(field)' (it was stored before the field existed; make the field optional to read such records)",
            entity: entity, field: field, key: recordKey)
    }

    /// Wraps an error thrown by a type's own `init(from:)`, keeping it as the cause.
    func wrap(_ error: DecodingError) -> StrataError {
        let code: StrataError.Code
        let context: DecodingError.Context
        var path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let c): code = .missingField; context = c; path = c.codingPath + [key]
        case .valueNotFound(_, let c): code = .typeMismatch; context = c; path = c.codingPath
        case .typeMismatch(_, let c): code = .typeMismatch; context = c; path = c.codingPath
        case .dataCorrupted(let c): code = .typeMismatch; context = c; path = c.codingPath
        @unknown default: return StrataError(.typeMismatch, "\(entity) \(recordKey): \(error)", entity: entity, key: recordKey, cause: error)
        }
        let field = pathString(path)
        let subject = field.isEmpty ? "" : "field '\(field)': "
        return StrataError(
            code, "\(entity) \(recordKey): \(subject)\(context.debugDescription)",
            entity: entity, field: field.isEmpty ? nil : field, key: recordKey, cause: error)
    }

    /// The coding path of the value at `component` of frame `parent`, outermost key first.
    func path(parent: Int, component: PathComponent) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var frame = parent
        var current = component
        while true {
            switch current {
            case .none: break
            case .entry(let entry): keys.append(RecordPathKey(stringValue: keyName(ofEntry: entry, topLevel: self.frame(frame).isTopLevel)))
            case .index(let index): keys.append(RecordPathKey(index: index))
            case .key(let offset): keys.append(RecordPathKey(stringValue: keyName(at: offset)))
            }
            guard frame >= 0 else { break }
            current = self.frame(frame).component
            frame = self.frame(frame).parent
        }
        return keys.reversed()
    }

    /// `address.city`, `tags[2]`.
    func pathString(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let key = key as? RecordPathKey, key.isIndex {
                text += "[\(key.intValue ?? 0)]"
            } else if key.stringValue.hasPrefix("Index "), let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

@_spi(Format) import StrataFormat
import Foundation

/// The index keys of a stored record: the one place that turns a record's fields into index keys.
///
/// Keys are built from the record's CBOR bytes, whichever API wrote it (a typed write, an import,
/// a relationship edit), so they are the same bytes by construction. The general path reads each
/// indexed field as a ``QueryValue`` and encodes it with ``IndexKey/encode(_:kind:collation:)``,
/// the encoder queries use to look keys up. Inside it, a fast path writes the key bytes of the
/// common parts (integers, doubles, epoch dates, binary-collated ASCII strings, nil) straight from
/// the stored bytes into one buffer, without a ``QueryValue`` or a `String`, through the same
/// encoding functions (`OrderedKey.appendInteger`, ``IndexKey/appendText(utf8:collation:to:)``); it says false for any
/// other part, and the general path answers. `DirectIndexKeyTests` holds the two to the same bytes
/// on random records. Fields whose Swift type has its own key encoding (``ValueKind/other``) are
/// keyed by the record type that declared the index (``IndexMaintainer``).
extension IndexKey {
    /// The full (uncut) index keys of a record's field values in `descriptor`: one, or one per
    /// distinct element for a multi-value index; none when a part has no key encoding.
    package static func keys(of fields: some FieldValues, _ descriptor: IndexDescriptor) -> [[UInt8]] {
        if descriptor.isMultiValue, let field = descriptor.fields.first {
            guard case .list(let elements)? = fields.value(at: field.path) else { return [] }
            var keys = Set<[UInt8]>()
            for element in elements {
                if let key = encode(element, kind: field.kind, collation: field.collation) { keys.insert(key) }
            }
            return keys.sorted { $0.lexicographicallyPrecedes($1) }
        }
        var key: [UInt8] = []
        for field in descriptor.fields {
            guard let part = encode(fields.value(at: field.path) ?? .null, kind: field.kind, collation: field.collation) else {
                return []
            }
            key.append(contentsOf: part)
        }
        return [key]
    }

    /// The full keys of `descriptor` for the selected `fields` of a record whose top-level fields
    /// sit at `slots` of the selection: the fast path when it applies, else ``keys(of:_:)``.
    package static func keys(of fields: StoredFieldValues, slots: [Int?], _ descriptor: IndexDescriptor) -> [[UInt8]] {
        if let key = directKey(fields, slots: slots, descriptor) { return [key] }
        return keys(of: fields, descriptor)
    }

    /// The slot in ``selection`` of each top-level field of each descriptor (nil for a nested
    /// path), computed once per maintainer.
    package static func slots(of descriptors: [IndexDescriptor], in selection: FieldSelection) -> [[Int?]] {
        descriptors.map { descriptor in
            descriptor.fields.map { field in field.path.count == 1 ? selection.slot(of: field.path[0]) : nil }
        }
    }

    /// The full key of the single-valued `descriptor` whose fields sit at `slots` of `fields`,
    /// or nil when a part needs the general path.
    package static func directKey(_ fields: StoredFieldValues, slots: [Int?], _ descriptor: IndexDescriptor) -> [UInt8]? {
        var key: [UInt8] = []
        key.reserveCapacity(24)
        return appendDirectKey(fields, slots: slots, descriptor, to: &key) ? key : nil
    }

    /// Makes `key` (emptied first, its storage kept) the full key of the single-valued
    /// `descriptor` whose fields sit at `slots` of `fields`; false when a part needs the general
    /// path (`key` is then undefined).
    package static func appendDirectKey(_ fields: StoredFieldValues, slots: [Int?], _ descriptor: IndexDescriptor,
                                to key: inout [UInt8]) -> Bool {
        guard !descriptor.isMultiValue else { return false }
        let bytes = fields.reader.bytes
        key.removeAll(keepingCapacity: true)
        for (part, field) in descriptor.fields.enumerated() {
            guard let slot = slots[part] else { return false }
            let offset = fields.offsets[slot]
            guard offset >= 0, offset < bytes.count, bytes[offset] != CBOR.nullByte else {
                key.append(OrderedKey.nilTag)   // absent or null: the nil key
                continue
            }
            var position = offset
            guard let head = try? fields.reader.readHead(at: &position) else { return false }
            switch head.major {
            case .text where field.kind == .string:
                guard let text = RecordCursor.textRange(fields.reader, head, payloadAt: position),
                      bytes.withUnsafeBufferPointer({ all in
                          IndexKey.appendText(utf8: UnsafeBufferPointer(rebasing: all[text]), collation: field.collation, to: &key)
                      }) else { return false }
            case .unsigned where field.kind == .integer:
                OrderedKey.appendInteger(head.argument, to: &key)
            case .negative where field.kind == .integer:
                guard head.argument <= UInt64(Int64.max) else { return false }
                OrderedKey.appendInteger(-1 - Int64(head.argument), to: &key)
            case .simple where field.kind == .double && (25...27).contains(head.info):
                fields.reader.floatValue(head).appendOrderedKey(to: &key)
            case .tag where field.kind == .date && head.argument == CBOR.epochDateTag:
                guard let seconds = try? fields.reader.readDouble(at: &position) else { return false }
                Date(timeIntervalSince1970: seconds).appendOrderedKey(to: &key)
            default:
                return false
            }
        }
        return true
    }
}

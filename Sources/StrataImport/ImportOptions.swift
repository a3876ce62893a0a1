/// How ``Store/importJSON(_:as:options:)-82xr4`` (and its async twin) treats a payload.
///
/// ```swift
/// let options = ImportOptions(mode: .sync(scope: "city == 'Berlin'"), rootKey: "users", onError: .skip)
/// ```
public struct ImportOptions: Sendable {
    /// Upsert only, or also delete what the payload lacks.
    public struct Mode: Sendable, Equatable {
        /// Records of the entity absent from the payload are deleted.
        public var deletesMissing: Bool
        /// With `deletesMissing`: only records matching this predicate format are candidates, so
        /// that a paginated or filtered fetch never deletes the rest.
        public var scope: String?
        /// Arguments of the scope's `%@` placeholders.
        public var scopeArguments: [String]

        /// Insert new records and update existing ones by primary key; delete nothing.
        public static let upsert = Mode(deletesMissing: false, scope: nil, scopeArguments: [])
        /// Make the entity match the payload: upsert, then delete every record it lacks.
        public static let sync = Mode(deletesMissing: true, scope: nil, scopeArguments: [])
        /// Make the records matching `scope` match the payload: upsert, then delete the records
        /// matching `scope` that the payload lacks.
        public static func sync(scope: String, _ arguments: String...) -> Mode {
            Mode(deletesMissing: true, scope: scope, scopeArguments: arguments)
        }
    }

    /// How the records lie in the input.
    ///
    /// ```swift
    /// let options = ImportOptions(inputFormat: .jsonLines)             // {"id": 1, …}\n{"id": 2, …}\n
    /// let keyed = ImportOptions(inputFormat: .keyedObjects, keyField: "code")   // {"DE": {…}, "FR": {…}}
    /// ```
    public enum InputFormat: String, Sendable, CaseIterable {
        /// Told from the input (the default), before any record is read: JSON Lines when the input
        /// starts with an object and another object starts on a later line; keyed objects when the
        /// document (or the member ``ImportOptions/rootKey`` names) is an object whose members are
        /// all objects, at least one; otherwise one JSON document. Telling keyed objects reads
        /// the whole object once more, a member at a time; the other formats are told from the
        /// first record.
        case detected
        /// One JSON document: an array of records, one record object, or the array (or the one
        /// record object) under ``ImportOptions/rootKey``. An object whose members are all
        /// objects is one record, and a second value after the document is malformed JSON.
        case json
        /// JSON Lines: a record on each line, each line a whole JSON value (`\n` or `\r\n` ends
        /// it; blank lines are skipped). A line that ends inside its value, or a second value on
        /// one line, is malformed JSON naming that line and column; an input with no lines holds
        /// no records. Read as a stream, a record at a time, like a JSON array.
        case jsonLines
        /// Keyed objects: one object whose members are the records, each an object, the member's
        /// name filling ``ImportOptions/keyField`` (`{"3040051": {"name": "les Escaldes"}}` is
        /// the record `{"id": "3040051", "name": "les Escaldes"}`). A member object that already
        /// has that key keeps its value when it is the name (the string, or a number written
        /// as the name); another value is refused with `.invalidRecord` naming the member, as
        /// is a member that is not an object. Read a member at a time.
        case keyedObjects
    }

    /// What happens to a record that cannot be mapped (wrong type, no primary key).
    public enum ErrorPolicy: String, Sendable {
        /// The import stops with the record's error; nothing is written (or, with a batch size,
        /// nothing after the last committed batch).
        case abort
        /// The record is left out and listed in ``ImportReport/failures``; the rest is imported.
        case skip
    }

    /// Upsert (the default) or sync, with a sync's scope.
    public var mode: Mode
    /// The member of a top-level object that holds the records (`{"users": [...]}`); nil when the
    /// document is the array of records itself, or a single record object.
    public var rootKey: String?
    /// How the records lie in the input: told from it (``InputFormat/detected``, the default),
    /// or as given.
    public var inputFormat: InputFormat
    /// The JSON key that keyed objects' member names fill (``InputFormat/keyedObjects``); nil
    /// (the default) is `id`. Naming one for an input that is not keyed objects is an
    /// `.invalidValue` error, not ignored. A schema inferred from keyed objects takes this field
    /// as the primary key unless told another.
    public var keyField: String?
    /// What a record that cannot be mapped does to the import (default ``ErrorPolicy/abort``).
    public var onError: ErrorPolicy
    /// Insert records whose key is not stored (default true).
    public var insertsNew: Bool
    /// Update stored records the payload changes (default true).
    public var updatesExisting: Bool
    /// In sync mode, delete records the payload lacks (default true).
    public var deletesMissing: Bool
    /// Compute the report without committing anything.
    public var dryRun: Bool
    /// Commit every this many records. Bounds the size of each transaction for huge inputs, but
    /// then an import is not atomic as a whole: a failure leaves the committed batches. nil (the
    /// default) imports in one write transaction: all or nothing, and two imports of one entity
    /// never interleave.
    public var batchSize: Int?
    /// JSON keys by dotted field path, overriding conventions and the type's ``Record/jsonKeys``.
    public var jsonKeys: [String: String]
    /// Value transforms by top-level field name, applied to the JSON value before mapping.
    public var transforms: [String: JSONValueTransform]
    /// Date formats by dotted field path, overriding automatic detection.
    public var dateFormats: [String: DateFormat]
    /// The limits on nesting depth and string length that hostile JSON meets.
    public var limits: JSONLimits
    /// When the import's commit reaches the disk (default ``Store/Durability/synchronous``).
    public var durability: Store.Durability
    /// Called every 10,000 records and at the end, on the importing thread. If the write
    /// transaction must be retried because the store's map grew, the import starts over and so
    /// does its progress.
    public var progress: (@Sendable (ImportProgress) -> Void)?
    /// The entities nested JSON fills through relationships: a record's member named after a
    /// relationship (`"notes": [{…}]`, `"company": {…}`) becomes related records of these
    /// entities, upserted by their own primary keys in the same transaction. Their relationships
    /// are recorded before the import starts.
    public var related: [RelatedEntity]

    /// Options for an import; every parameter is the property of the same name, and the defaults upsert every
    /// record of the payload in one synchronous write transaction, stopping at the first record that fails.
    public init(
        mode: Mode = .upsert, rootKey: String? = nil, inputFormat: InputFormat = .detected, keyField: String? = nil,
        onError: ErrorPolicy = .abort,
        insertsNew: Bool = true, updatesExisting: Bool = true, deletesMissing: Bool = true,
        dryRun: Bool = false, batchSize: Int? = nil,
        jsonKeys: [String: String] = [:], transforms: [String: JSONValueTransform] = [:],
        dateFormats: [String: DateFormat] = [:], limits: JSONLimits = JSONLimits(),
        durability: Store.Durability = .synchronous,
        progress: (@Sendable (ImportProgress) -> Void)? = nil,
        related: [RelatedEntity] = []
    ) {
        self.mode = mode
        self.rootKey = rootKey
        self.inputFormat = inputFormat
        self.keyField = keyField
        self.onError = onError
        self.insertsNew = insertsNew
        self.updatesExisting = updatesExisting
        self.deletesMissing = deletesMissing
        self.dryRun = dryRun
        self.batchSize = batchSize
        self.jsonKeys = jsonKeys
        self.transforms = transforms
        self.dateFormats = dateFormats
        self.limits = limits
        self.durability = durability
        self.progress = progress
        self.related = related
    }
}

/// An entity that nested JSON may fill during an import (``ImportOptions/related``).
public struct RelatedEntity: Sendable {
    enum Kind: Sendable {
        case record(any Record.Type)
        case described(EntityDescription)
    }
    let kind: Kind

    /// The entity of a record type, with the relationships it declares.
    public static func record<T: Record>(_ type: T.Type) -> RelatedEntity { RelatedEntity(kind: .record(type)) }

    /// An entity known by its description (the command-line tool's schema file).
    public static func described(_ description: EntityDescription) -> RelatedEntity { RelatedEntity(kind: .described(description)) }

    /// The entity's name.
    public var name: String {
        switch kind {
        case .record(let type): type.entityName
        case .described(let description): description.name
        }
    }
}

/// How far an import has come.
public struct ImportProgress: Sendable, Equatable {
    /// Records read from the input so far.
    public var recordsRead: Int
    /// Bytes of input parsed so far, and in all when known.
    public var bytesRead: Int
    /// The input's size in bytes, when known (a file; not a stream).
    public var totalBytes: Int?

    /// Between 0 and 1, by bytes; nil when the input's size is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        return totalBytes == 0 ? 1 : min(1, Double(bytesRead) / Double(totalBytes))
    }
}

extension ImportOptions {
    /// These options with ``inputFormat`` told from `source` when it is ``InputFormat/detected``
    /// (reading the input's first record, or a keyed object whole, a member at a time), and
    /// checked against it: `.invalidValue` for a ``keyField`` with input that is not keyed
    /// objects, or a ``rootKey`` with JSON Lines, which have no top-level object.
    func resolvingInputFormat(of source: ImportSource) throws(StrataError) -> ImportOptions {
        var resolved = self
        if rootKey != nil, inputFormat == .jsonLines {
            throw StrataError(.invalidValue, "a root key picks the records out of one JSON document; JSON Lines have a record a line and no root key")
        }
        if inputFormat == .detected {
            resolved.inputFormat = try JSONParser.detectedFormat(of: try source.open(), rootKey: rootKey, limits: limits)
        }
        if let keyField, resolved.inputFormat != .keyedObjects {
            let input = switch resolved.inputFormat {
            case .jsonLines: "JSON Lines"
            case .json where rootKey != nil: "the array or object under the root key \(JSONValue.quoted(rootKey!))"
            default: "a JSON array or one record object"
            }
            throw StrataError(.invalidValue, "the key field \(JSONValue.quoted(keyField)) takes the member names of keyed objects "
                + "(an object whose members are all objects), but the input is \(input)"
                + (inputFormat == .detected ? "" : " as its input format says"))
        }
        return resolved
    }

    /// ``resolvingInputFormat(of:)`` for the file at `path` (the tool tells the format once, for
    /// its schema inference and its import).
    package func resolvingInputFormat(ofFile path: String) throws(StrataError) -> ImportOptions {
        try resolvingInputFormat(of: .file(path))
    }

    /// The JSON key keyed objects' member names fill: ``keyField``, else `id`.
    var keyedObjectsField: String { keyField ?? "id" }

    /// A parser of `source`'s records as these options lay them out (their format resolved).
    func parser(of source: ImportSource) throws(StrataError) -> JSONParser {
        JSONParser(source: try source.open(), limits: limits, format: inputFormat, keyField: keyedObjectsField)
    }
}

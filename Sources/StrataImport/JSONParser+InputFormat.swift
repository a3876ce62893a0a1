/// The parser's record layouts named by the importer's input formats (``ImportOptions/InputFormat``),
/// which add `detected`: a format told from the input, before a parser reads its records.
extension JSONParser {
    /// A parser of `source` whose records lie as `format` says (resolved: not `.detected`);
    /// keyed objects' member names fill `keyField`.
    init(source: any JSONByteSource, limits: JSONLimits = JSONLimits(), format: ImportOptions.InputFormat,
         keyField: String = "id") {
        guard let layout = format.layout else {
            preconditionFailure("the input format is told from the input before a parser reads its records")
        }
        self.init(source: source, limits: limits, layout: layout, keyField: keyField)
    }

    /// The format ``ImportOptions/InputFormat/detected`` reads `source` as (never `.detected`);
    /// ``detectedLayout(of:rootKey:limits:)`` says how it is told.
    static func detectedFormat(of source: any JSONByteSource, rootKey: String?,
                               limits: JSONLimits) throws(StrataError) -> ImportOptions.InputFormat {
        ImportOptions.InputFormat(try detectedLayout(of: source, rootKey: rootKey, limits: limits))
    }
}

extension ImportOptions.InputFormat {
    /// The format that names `layout`.
    init(_ layout: JSONParser.InputLayout) {
        switch layout {
        case .json: self = .json
        case .jsonLines: self = .jsonLines
        case .keyedObjects: self = .keyedObjects
        }
    }

    /// How the records of input in this format lie; nil for `.detected`, which is told from the input.
    var layout: JSONParser.InputLayout? {
        switch self {
        case .detected: nil
        case .json: .json
        case .jsonLines: .jsonLines
        case .keyedObjects: .keyedObjects
        }
    }
}

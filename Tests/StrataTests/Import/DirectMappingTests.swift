import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataImport

/// The import pipeline maps records straight from the parser's bytes
/// (`RecordMapper.item(reading:…)`); these tests hold it to the general path (a parsed
/// `JSONValue` through `RecordMapper.map`): the same bytes, failures, positions and errors, at
/// every chunk size.
@Suite struct DirectMappingTests {
    /// A field of every type, optional or not, with and without date formats.
    static let description = EntityDescription(name: "Thing", primaryKey: "id", fields: [
        FieldDescription("id", .integer),
        FieldDescription("name", .string),
        FieldDescription("nick", .string, optional: true),
        FieldDescription("born", .date, optional: true),
        FieldDescription("stamps", .array(.date), optional: true),
        FieldDescription("tags", .array(.string), optional: true),
        FieldDescription("counts", .array(.integer), optional: true),
        FieldDescription("score", .double, optional: true),
        FieldDescription("ratio", .float, optional: true),
        FieldDescription("flag", .bool, optional: true),
        FieldDescription("address", .object([FieldDescription("street", .string), FieldDescription("zip", .integer, optional: true)]),
                         optional: true),
        FieldDescription("addresses", .array(.object([FieldDescription("street", .string)])), optional: true),
        FieldDescription("extra", .any, optional: true),
        FieldDescription("ident", .uuid, optional: true),
        FieldDescription("site", .url, optional: true),
        FieldDescription("blob", .data, optional: true),
        FieldDescription("amount", .decimal, optional: true),
        FieldDescription("grid", .array(.array(.integer)), optional: true),
        FieldDescription("millis", .date, optional: true, dateFormat: .millisecondsSince1970),
        FieldDescription("isoOnly", .date, optional: true, dateFormat: .iso8601),
        FieldDescription("createdDate", .date, optional: true),
        FieldDescription("nickName", .string, optional: true, jsonKey: "alias"),
    ])

    static let records = #"""
        [{"id": 1, "name": "Ann", "born": "2015-06-05T17:33:59Z", "tags": ["a", "b"], "score": 344.1, "flag": true,
          "created_at": "2021-07-18T15:53:05Z", "alias": "A"},
         {"i\u0064": 2, "na\u006de": "B\"ob\\ \/ \n\t\b\f\r", "NICK": "x", "first_name": "ignored", "unknown": {"deep": [1, 2, {"z": "y"}]}},
         {"id": 3, "name": 5, "name": "later", "tags": [1, {"x": 1}], "tags": ["ok"], "counts": [1, "x"], "counts": [2]},
         {"id": 4, "name": "x", "counts": [1, 2], "counts": [1, "x", 3, {"y": 1}], "tags": ["a", 5, 2.5, true]},
         {"id": 5, "name": "Fünke ✓ 😀", "nick": "\u00fc\ud83d\ude00", "tags": ["ü", "\ud83d\ude00", "e\u0301"]},
         {"id": 9223372036854775807, "name": "big", "score": 9223372036854775808, "ratio": 1e-5,
          "counts": [-9223372036854775808, 123456789012345678, 1234567890123456789, -0, 0, 999999999999999999]},
         {"id": -9223372036854775808, "name": "small", "score": -12.5e1, "ratio": 0.1, "counts": [1.0, 2e2, -3E+1]},
         {"id": 6, "name": "too big", "counts": [9223372036854775808]},
         {"id": 7, "name": "n", "address": {"street": "Main", "zip": 12345, "street": "Dup"}, "extra": {"b": [1, {"c": null}], "a": "x", "b": 2},
          "grid": [[1, 2], [], [3]], "addresses": [{"street": "a"}, {"street": "b", "other": 1}]},
         {"id": 8, "name": "d1", "born": "2014-02-14", "stamps": ["2014-02-14T04:30", "2014-02-14T04:30:10", "2014-02-14 04:30:10.123456",
          "2014-02-14t04:30:10,5z", "2014-02-14T04:30:10+01:00", "2014-02-14T04:30:10-0130", "2014-02-14T04:30:10+05",
          1392352210, 1392352210123, "1392352210", "1392352210.5", 1392352210.25]},
         {"id": 9, "name": "d2", "born": 1392352210123, "millis": 1392352210123, "isoOnly": "2014-02-14T04:30:10.5Z", "createdDate": "1392352210"},
         {"id": 10, "name": "d3", "millis": "1392352210123", "born": "2014-13-01"},
         {"id": 11, "name": "d4", "isoOnly": 1392352210},
         {"id": 12, "name": "d5", "stamps": ["2014-02-14", "yesterday", "2014-02-30"]},
         {"id": 13, "name": "d6", "born": "2016-02-29T23:59:60Z", "stamps": ["2015-02-29"]},
         {"id": 14, "name": null},
         {"id": 15, "name": "nulls", "nick": null, "born": null, "tags": null, "address": null, "extra": null},
         {"id": 16, "name": "wrong kinds", "born": true, "tags": "a", "flag": "yes"},
         {"id": 17, "name": "wrong kinds 2", "tags": {"a": 1}, "stamps": "2014-02-14", "address": [1]},
         42, "text", [1, 2], null, true,
         {"name": "no key"},
         {"id": null, "name": "null key"},
         {"id": "18", "name": "string key"},
         {"id": 2.5, "name": "fraction key"},
         {"id": 19.0, "name": "whole double key"},
         { "id" : 20 ,
           "name"	:
         "spaced" , "tags" : [ "a" , "b" ] , "born"
           : "2014-02-14" },
         {"id": 21, "name": "kinds", "ident": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "site": "https://example.com/a?b=c",
          "blob": "aGVsbG8=", "amount": "12.345", "score": "2.5", "flag": 1, "ratio": "7"},
         {"id": 22, "name": "bad kinds", "ident": "nope", "blob": "%%%", "amount": "x"},
         {},
         {"id": 23, "name": "many", "tags": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
          "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"], "tags": [], "stamps": []},
         {"id": 24, "name": "a string longer than fifteen bytes, to live on the heap", "tags": ["another string longer than fifteen bytes"]},
         {"alias": "reordered", "tags": ["z"], "name": "r", "id": 25, "born": "2000-01-01T00:00:00Z"},
         {"id": 26, "name": "", "nick": "", "tags": [""], "born": ""},
         {"id": 27, "name": "dup id", "id": 28},
         {"id": 29, "name": "esc \u0041\u00e9 key", "t\u0061gs": ["\u0041"], "born": "2014-02-14T04:30:10\u005a"}]
        """#

    static let chunks = [1, 2, 3, 5, 7, 16, 64, 1 << 20]

    @Test(arguments: chunks)
    func directAndGeneralPathsGiveTheSameRecords(chunk: Int) throws {
        let general = try Self.run(Self.records, chunk: chunk, direct: false)
        let direct = try Self.run(Self.records, chunk: chunk, direct: true)
        #expect(general.error == nil)
        #expect(direct.items.count == general.items.count)
        for (d, g) in zip(direct.items, general.items) { #expect(d == g) }
        #expect(direct.ignoredKeys == general.ignoredKeys)
        #expect(general.items.contains { $0.failure == nil } && general.items.contains { $0.failure != nil })
    }

    @Test func transformsDateFormatsAndKeyOverridesAgree() throws {
        let options = ImportOptions(
            jsonKeys: ["nick": "nick_name", "address.street": "road"],
            transforms: [
                "name": { value in
                    guard case .string(let text) = value else { return value }
                    return .string(text.uppercased())
                },
                "tags": { value in
                    guard case .array(let elements) = value else { return value }
                    return .array(elements.reversed())
                },
                "born": { value in value == .string("never") ? .null : value },
                "flag": { _ in throw CancellationError() },
            ],
            dateFormats: ["born": .secondsSince1970, "stamps": .millisecondsSince1970])
        let text = #"""
            [{"id": 1, "name": "ann", "nick_name": "A", "nick": "ignored", "tags": ["a", "b"], "born": 1392352210,
              "stamps": [1392352210123, "1392352210123"], "address": {"road": "Main", "street": "ignored"}},
             {"id": 2, "name": 7, "born": "1392352210", "stamps": ["2014-02-14"]},
             {"id": 3, "name": "x", "born": "never"},
             {"id": 4, "name": "x", "flag": true}]
            """#
        for chunk in Self.chunks {
            let general = try Self.run(text, chunk: chunk, options: options, direct: false)
            let direct = try Self.run(text, chunk: chunk, options: options, direct: true)
            #expect(general.error == nil && direct.items.count == 4)
            #expect(direct.items == general.items)
            #expect(direct.ignoredKeys == general.ignoredKeys)
        }
    }

    @Test(arguments: [
        #"[{"id": 1, "name": "x",}]"#,
        #"[{"id": 1 "name": "x"}]"#,
        #"[{"id": 1, "name": "x"}, {"id": 2, "name" "y"}]"#,
        #"[{"id": 1, "tags": ["a",]}]"#,
        #"[{"id": 1, "tags": ["a" "b"]}]"#,
        #"[{"id": 1, "tags": ["a", ]}]"#,
        #"[{"id": 1, "tags": [}]"#,
        #"[{"id": 1, "name": "\ud800"}]"#,
        #"[{"id": 1, "name": "\x"}]"#,
        #"[{"id": 01}]"#,
        #"[{"id": -}]"#,
        #"[{"id": 1.}]"#,
        #"[{"id": 1e}]"#,
        #"[{"id": 1e999}]"#,
        #"[{"id": 1, "counts": [1, "x"], "name": tru}]"#,
        #"[{"id": 1, "name": "x"} {"id": 2}]"#,
        #"[{"id": 1, "name": "x"}, ]"#,
        #"[{"id": 1, "name": "x"#,
        #"[{"id": 1, "tags": ["#,
        #"[{"id": 1, "tags": ["a"#,
        #"[{"id": 1, "born": "2014"#,
        #"[{"id": 1, "name": "x", "extra": {"a": [1, 2}}]"#,
        "[{\"id\": 1, \"name\": \"a\u{01}b\"}]",
        #"[{"id": 1, "tags": [1, 2, 3], "name": }]"#,
        #"[{1: 2}]"#,
        #"[{"id": 1, "name": "x"}]  x"#,
    ])
    func malformedRecordsFailAlikeAtTheSamePosition(text: String) throws {
        for chunk in Self.chunks {
            let general = try Self.run(text, chunk: chunk, direct: false)
            let direct = try Self.run(text, chunk: chunk, direct: true)
            #expect(general.error != nil)
            #expect(direct.error == general.error)
            #expect(direct.items == general.items)
        }
    }

    @Test func limitsApplyAlike() throws {
        let cases: [(String, JSONLimits)] = [
            (#"[{"id": 1, "tags": ["a"]}]"#, JSONLimits(maximumDepth: 2)),
            (#"[{"id": 1, "tags": [["a"]]}]"#, JSONLimits(maximumDepth: 3)),
            (#"[{"id": 1, "extra": [{"a": 1}]}]"#, JSONLimits(maximumDepth: 3)),
            (#"[{"id": 1}]"#, JSONLimits(maximumDepth: 1)),
            (#"[{"id": 1, "name": "abcdef"}]"#, JSONLimits(maximumStringLength: 4)),
            (#"[{"id": 1, "name": "ab\ncd"}]"#, JSONLimits(maximumStringLength: 4)),
            (#"[{"id": 1, "tags": ["abcd", "abcde"]}]"#, JSONLimits(maximumStringLength: 4)),
            (#"[{"id": 1, "longkey": 1}]"#, JSONLimits(maximumStringLength: 4)),
        ]
        for (text, limits) in cases {
            for chunk in Self.chunks {
                let general = try Self.run(text, chunk: chunk, options: ImportOptions(limits: limits), direct: false)
                let direct = try Self.run(text, chunk: chunk, options: ImportOptions(limits: limits), direct: true)
                #expect(general.error != nil, "\(text)")
                #expect(direct.error == general.error, "\(text)")
            }
        }
    }

    @Test func invalidUTF8FailsAlike() throws {
        var bytes = Array(#"[{"id": 1, "name": "ab"#.utf8)
        bytes.append(contentsOf: [0xC3, 0x28])
        bytes.append(contentsOf: Array(#""}]"#.utf8))
        var keyBytes = Array(#"[{"id": 1, "na"#.utf8)
        keyBytes.append(0xFF)
        keyBytes.append(contentsOf: Array(#"": "x"}]"#.utf8))
        for input in [bytes, keyBytes] {
            for chunk in Self.chunks {
                let general = try Self.run(input, chunk: chunk, options: ImportOptions(), direct: false)
                let direct = try Self.run(input, chunk: chunk, options: ImportOptions(), direct: true)
                #expect(general.error?.message.contains("UTF-8") == true)
                #expect(direct.error == general.error)
            }
        }
    }

    /// The writer tells an unchanged record in place only when re-encoding would give the same
    /// bytes: never for a record with absent fields or stored fields the description lacks.
    @Test func anUnchangedRecordIsRecognisedOnlyWhenEncodingWouldGiveItsBytes() throws {
        let names = Dictionary(uniqueKeysWithValues: Self.description.fields.enumerated().map { ($0 + 1, $1.name) })
        let layout = RecordLayout(Self.description, ids: FieldTable(names: names))
        let text = #"""
            [{"id": 1, "name": "a", "tags": ["x"], "score": 2.5, "flag": null, "nick": "n", "born": 0, "stamps": [], "counts": [1],
              "ratio": 1, "address": {"street": "s"}, "addresses": [], "extra": 1, "ident": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
              "site": "https://a.b", "blob": "", "amount": "1", "grid": [], "millis": 0, "isoOnly": "2000-01-01", "created_at": 0,
              "alias": "x"},
             {"id": 2, "name": "b"}]
            """#
        var parser = JSONParser(source: InMemoryByteSource(Array(text.utf8)))
        let mapper = RecordMapper(description: Self.description, options: ImportOptions())
        var mapped: [RecordMapper.Mapped] = []
        while let (record, _) = try parser.nextRecordWithStart(rootKey: nil) { mapped.append(try mapper.map(record, maximumKeySize: 511)) }
        for record in mapped {
            let fresh = try layout.encode(record, merging: nil, entity: "Thing")
            var extra = fresh
            extra[0] += 1   // one more entry in the map head (fewer than 24 fields)
            extra.append(contentsOf: [0x18, 99, 0x01])   // field 99: 1
            var changed = fresh
            changed[changed.count - 1] ^= 1
            for stored in [fresh, extra, changed, Array(fresh.dropLast()), fresh + [0], []] {
                let same = stored.withUnsafeBufferPointer { layout.isUnchanged(record, stored: $0) }
                let reencoded = try? layout.encode(record, merging: stored, entity: "Thing")
                if same { #expect(reencoded == stored) }
                #expect(same == (stored == fresh && !record.slots.contains { if case .absent = $0 { true } else { false } }))
            }
        }
    }

    /// Integer primary keys are encoded without IndexKey.encode's detours, to the same bytes.
    @Test func integerPrimaryKeysEncodeAsIndexKeysDo() throws {
        let ids: [(String, Int64)] = [("0", 0), ("1", 1), ("-1", -1), ("255", 255), ("256", 256), ("-9223372036854775808", .min),
                                      ("9223372036854775807", .max), ("\"17\"", 17), ("2.0", 2), ("1e3", 1000)]
        let texts = ids.map { $0.0 == "1e3" ? "1000.0" : $0.0 == "\"17\"" ? "17" : $0.0 }   // as the general path writes them
        let text = "[" + ids.map { #"{"id": \#($0.0), "name": "n"}"# }.joined(separator: ",") + "]"
        let run = try Self.run(text, chunk: 1 << 20, direct: true)
        #expect(run.items.count == ids.count)
        for ((item, (json, id)), keyText) in zip(zip(run.items, ids), texts) {
            #expect(item.failure == nil)
            #expect(item.key == IndexKey.encode(.int(id), kind: ValueKind(.integer), collation: .binary), "\(json)")
            #expect(item.keyText == keyText)
        }
    }

    // MARK: Running both paths

    /// One pipeline item, with its fields' bytes rather than ranges of the values buffer.
    struct Outcome: Equatable, CustomStringConvertible {
        var index: Int
        var position: InputPosition
        var endOffset: Int
        var failure: String?
        var key: [UInt8] = []
        var keyText = ""
        var fields: [[UInt8]?] = []   // nil: absent; [] null; else the value's CBOR

        var description: String { "#\(index) \(failure ?? keyText) \(fields)" }
    }

    struct Run {
        var items: [Outcome] = []
        var ignoredKeys: [String: Int] = [:]
        var error: Failure?
    }

    struct Failure: Equatable {
        var message: String
        var position: InputPosition?
    }

    static func run(_ text: String, chunk: Int, options: ImportOptions = ImportOptions(), direct: Bool) throws -> Run {
        try run(Array(text.utf8), chunk: chunk, options: options, direct: direct)
    }

    /// What the pipeline's reader hands over for `bytes`, the general or the direct way.
    static func run(_ bytes: [UInt8], chunk: Int, options: ImportOptions, direct: Bool) throws -> Run {
        var parser = JSONParser(source: TinyChunks(bytes: bytes, size: chunk), limits: options.limits,
                                format: options.inputFormat == .detected ? .json : options.inputFormat, keyField: options.keyedObjectsField)
        let mapper = RecordMapper(description: description, options: options)
        var run = Run()
        do {
            var index = 0
            while true {
                let item: PipelineItem
                if direct {
                    guard let (record, position) = try parser.nextPendingRecordWithStart(rootKey: options.rootKey) else { break }
                    switch record {
                    case .parsed(let value):
                        item = mapper.item(value, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                    case .atValue:
                        item = try mapper.item(reading: &parser, index: index, position: position, maximumKeySize: 511)
                    }
                } else {
                    guard let (record, position) = try parser.nextRecordWithStart(rootKey: options.rootKey) else { break }
                    item = mapper.item(record, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                }
                run.items.append(outcome(item))
                index += 1
            }
        } catch {
            run.error = Failure(message: error.message, position: error.position)
        }
        run.ignoredKeys = mapper.ignoredKeys
        return run
    }

    static func outcome(_ item: PipelineItem) -> Outcome {
        var outcome = Outcome(index: item.index, position: item.position, endOffset: item.endOffset)
        switch item.content {
        case .failed(let message):
            outcome.failure = message
        case .mapped(let mapped):
            outcome.key = mapped.primaryKey
            outcome.keyText = mapped.keyText
            outcome.fields = mapped.slots.map { slot in
                switch slot {
                case .absent: nil
                case .null: []
                case .value(let range): Array(mapped.values[range])
                }
            }
        }
        return outcome
    }
}

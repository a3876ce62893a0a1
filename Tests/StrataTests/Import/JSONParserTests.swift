import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataImport

/// Hands out its bytes `size` at a time, to put every token across a chunk boundary.
struct TinyChunks: JSONByteSource {
    var bytes: [UInt8]
    let size: Int
    mutating func nextChunk(into buffer: inout [UInt8]) throws(StrataError) {
        buffer = Array(bytes.prefix(size))
        bytes.removeFirst(min(size, bytes.count))
    }
}

/// All records of `text`, parsed with chunks of `chunk` bytes, laid out as `format` says (told
/// from the text, as an import tells it, for `.detected`).
func parseRecords(_ text: String, rootKey: String? = nil, chunk: Int = 1 << 20, limits: JSONLimits = JSONLimits(),
                  format: ImportOptions.InputFormat = .json, keyField: String = "id") throws -> [JSONValue] {
    let bytes = Array(text.utf8)
    let format = format == .detected
        ? try JSONParser.detectedFormat(of: TinyChunks(bytes: bytes, size: chunk), rootKey: rootKey, limits: limits) : format
    var parser = JSONParser(source: TinyChunks(bytes: bytes, size: chunk), limits: limits, format: format, keyField: keyField)
    var records: [JSONValue] = []
    while let record = try parser.nextRecord(rootKey: rootKey) { records.append(record) }
    return records
}

/// The malformed-JSON error of parsing `text`.
func parseFailure(_ text: String, rootKey: String? = nil, limits: JSONLimits = JSONLimits(), chunk: Int = 1 << 20,
                  format: ImportOptions.InputFormat = .json, keyField: String = "id") -> StrataError? {
    do {
        _ = try parseRecords(text, rootKey: rootKey, chunk: chunk, limits: limits, format: format, keyField: keyField)
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        return nil
    }
}

@Suite struct JSONParserTests {
    let sample = #"""
        [{"id": 1, "name": "Gob \"G\" Bluth", "score": -12.5e1, "tags": ["a", "b"], "nested": {"ok": true, "none": null}},
         {"id": 9223372036854775807, "big": 9223372036854775808, "text": "\u00fc\ud83d\ude00\n\t\/", "zero": 0, "f": false}]
        """#

    @Test func parsesAnArrayOfRecordsWithEveryKindOfValue() throws {
        let records = try parseRecords(sample)
        #expect(records.count == 2)
        #expect(records[0]["id"] == .int(1))
        #expect(records[0]["name"] == .string("Gob \"G\" Bluth"))
        #expect(records[0]["score"] == .double(-125))
        #expect(records[0]["tags"] == .array([.string("a"), .string("b")]))
        #expect(records[0]["nested"] == .object([JSONMember(key: "ok", value: .bool(true)), JSONMember(key: "none", value: .null)]))
        #expect(records[1]["id"] == .int(.max))
        #expect(records[1]["big"] == .wideInt(WideInteger(UInt64(1) << 63)))
        #expect(records[1]["text"] == .string("ü😀\n\t/"))
        #expect(records[1]["zero"] == .int(0))
        #expect(records[1]["f"] == .bool(false))
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func everyChunkBoundaryGivesTheSameRecords(chunk: Int) throws {
        #expect(try parseRecords(sample, chunk: chunk) == parseRecords(sample))
        let text = "{\"users\": [{\"name\": \"Fünke ✓ and a longer string\"}], \"page\": 2}"
        #expect(try parseRecords(text, rootKey: "users", chunk: chunk) == [.object([JSONMember(key: "name", value: .string("Fünke ✓ and a longer string"))])])
    }

    /// Numbers inside one chunk take the fast paths (integers without text, Clinger's exact
    /// decimals); a chunk of one byte takes the careful path through `strtod`. Same bits.
    @Test func numbersReadInOneChunkEqualThoseReadByteByByte() throws {
        var generator = SeededGenerator(seed: 7)
        var numbers = ["0", "-0", "0.0", "-0.0", "0e0", "0.1", "0.30000000000000004", "9007199254740993.0", "1e22", "1e23",
                       "1E-22", "1e-23", "123456789012345.6", "1234567890123456.7", "5e-324", "1.7976931348623157e308",
                       "999999999999999999", "-999999999999999999", "9223372036854775807", "-9223372036854775808",
                       "9223372036854775808", "0.000001234", "100000000000000000000.5", "1.000000000000000000", "1e+005",
                       "4.35", "344.1", "754.03", "-12.5e1", "2e2", "1e0005"]
        for _ in 0..<2000 {
            let digits = (0..<Int.random(in: 1...20, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }
            var text = digits.joined().drop { $0 == "0" }.description
            if text.isEmpty { text = "0" }
            if Bool.random(using: &generator) {
                let point = Int.random(in: 1...text.count, using: &generator)
                text = String(text.prefix(point)) + "." + (point == text.count ? "5" : String(text.dropFirst(point)))
            }
            if Bool.random(using: &generator) { text += "e" + String(Int.random(in: -30...30, using: &generator)) }
            if Bool.random(using: &generator) { text = "-" + text }
            numbers.append(text)
        }
        let json = "[" + numbers.joined(separator: ",") + "]"
        let fast = try parseRecords(json)
        let careful = try parseRecords(json, chunk: 1)
        #expect(fast.count == numbers.count)
        for (index, (a, b)) in zip(fast, careful).enumerated() {
            switch (a, b) {
            case (.int(let x), .int(let y)): #expect(x == y, "\(numbers[index])")
            case (.wideInt(let x), .wideInt(let y)): #expect(x == y, "\(numbers[index])")
            case (.double(let x), .double(let y)): #expect(x.bitPattern == y.bitPattern, "\(numbers[index])")
            default: Issue.record("\(numbers[index]): \(a) and \(b)")
            }
        }
    }

    @Test func aSingleObjectIsOneRecord() throws {
        #expect(try parseRecords(#"  {"id": 99}  "#) == [.object([JSONMember(key: "id", value: .int(99))])])
        #expect(try parseRecords("[]").isEmpty)
    }

    @Test func rootKeyFindsTheRecordsAmongOtherMembers() throws {
        let text = #"{"meta": {"page": [1, {"x": 2}]}, "users": [{"id": 1}, {"id": 2}], "next": null}"#
        #expect(try parseRecords(text, rootKey: "users").count == 2)
        #expect(try parseRecords(#"{"user": {"id": 7}, "more": 1}"#, rootKey: "user") == [.object([JSONMember(key: "id", value: .int(7))])])
        #expect(parseFailure(#"{"people": []}"#, rootKey: "users")?.message.contains(#"no member "users""#) == true)
        #expect(parseFailure(#"{"users": 3}"#, rootKey: "users")?.message.contains("must be an array or an object") == true)
        #expect(parseFailure(#"[{"id": 1}]"#, rootKey: "users")?.message.contains(#"expected an object with the member "users""#) == true)
    }

    @Test(arguments: [#"{"users": [{"id": 1}], "users": [{"id": 2}]}"#,
                      #"{"users": {"id": 1}, "n": 2, "users": [{"id": 2}]}"#,
                      #"{"users": [], "users": 3}"#])
    func aRootKeyNamedTwiceIsRefusedRatherThanOneArrayDropped(_ text: String) throws {
        let error = try #require(parseFailure(text, rootKey: "users"))
        #expect(error.code == .invalidValue)
        #expect(error.message.contains(#"the member "users" (the root key) more than once"#))
        // Without a root key the members are a record's fields, which the mapping checks.
        #expect(try parseRecords(#"{"a": 1, "b": 2}"#).count == 1)
    }

    @Test func errorsNameTheByteLineAndColumn() throws {
        let error = try #require(parseFailure("[\n  {\"id\": 1,}\n]"))
        #expect(error.code == .malformedJSON)
        #expect(error.position == InputPosition(offset: 13, line: 2, column: 12))
        #expect(error.message.contains("line 2, column 12"))
        #expect(error.message.contains("trailing comma"))
    }

    @Test(arguments: [
        ("[1, 2,]", "trailing comma"),
        ("[{\"a\": 1}", "unexpected end of input"),
        ("[{\"a\": tru}]", "expected 'true'"),
        ("[{\"a\": 01}]", "leading zero"),
        ("[{\"a\": 1.}]", "digit after the decimal point"),
        ("[{\"a\": -}]", "digit after '-'"),
        ("[{\"a\": \"x\ny\"}]", "unescaped control character"),
        ("[{\"a\": \"\\x\"}]", "invalid escape"),
        ("[{\"a\": \"\\ud800\"}]", "lone high surrogate"),
        ("[{\"a\": \"\\udc00\"}]", "lone low surrogate"),
        ("[{\"a\": 1e999}]", "out of range"),
        ("[{a: 1}]", "member name in double quotes"),
        ("[{\"a\" 1}]", "expected ':'"),
        ("[{\"a\": 1} {\"b\": 2}]", "expected ',' or ']'"),
        ("[] []", "after the end of the JSON document"),
        ("", "the input is empty"),
        ("\"text\"", "expected a JSON array or object"),
        ("[{\"a\": \"unterminated", "unterminated string"),
        ("[NaN]", "expected a value"),
    ])
    func malformedInputIsATypedError(text: String, expected: String) throws {
        let error = try #require(parseFailure(text))
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.position != nil)
    }

    @Test func invalidUTF8IsRefused() throws {
        var bytes = Array(#"[{"name": "ab"#.utf8)
        bytes += [0xC3, 0x28]   // an invalid two-byte sequence
        bytes += Array(#""}]"#.utf8)
        var parser = JSONParser(source: InMemoryByteSource(bytes))
        let error = try #require(throws: StrataError.self) { try parser.nextRecord(rootKey: nil) }
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains("not valid UTF-8"))
        #expect(error.position?.offset == 10)
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotAStackOverflow() throws {
        let deep = "[" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "]"
        let error = try #require(parseFailure(deep))
        #expect(error.message.contains("nest deeper than 512 levels"))
        let deepObjects = "[" + String(repeating: "{\"a\":", count: 100_000)
        #expect(parseFailure(deepObjects)?.message.contains("nest deeper than 512 levels") == true)
    }

    @Test func aStringOverTheLimitStopsBeforeTheRestIsRead() throws {
        let limits = JSONLimits(maximumStringLength: 1024)
        let error = try #require(parseFailure("[{\"a\": \"" + String(repeating: "x", count: 5000) + "\"}]", limits: limits))
        #expect(error.message.contains("longer than the limit of 1024 bytes"))
        #expect(error.position?.offset == 7)
        // Streamed in small chunks, the same error comes before the end of the string is reached.
        var parser = JSONParser(source: EndlessString(), limits: limits)
        #expect(throws: StrataError.self) { _ = try parser.nextRecord(rootKey: nil) }
    }

    /// A string one byte over the limit is refused however it falls in the chunks.
    @Test(arguments: [1, 3, 1 << 20])
    func aStringOneByteOverTheLimitIsRefused(chunk: Int) throws {
        let limits = JSONLimits(maximumStringLength: 4)
        #expect(try parseRecords(#"["abcd", {"abcd": "a\nbc"}]"#, chunk: chunk, limits: limits).count == 2)
        for text in [#"["abcde"]"#, #"[{"abcde": 1}]"#, #"["abc\nd"]"#] {
            #expect(throws: StrataError.self, "\(text)") { _ = try parseRecords(text, chunk: chunk, limits: limits) }
            do { _ = try parseRecords(text, chunk: chunk, limits: limits) } catch let error as StrataError {
                #expect(error.message.contains("longer than the limit of 4 bytes"), "\(text)")
            }
        }
    }
}

/// `[{"a": "xxxx…` forever: a string longer than any limit.
struct EndlessString: JSONByteSource {
    var started = false
    mutating func nextChunk(into buffer: inout [UInt8]) throws(StrataError) {
        buffer = started ? Array(repeating: UInt8(ascii: "x"), count: 4096) : Array(#"[{"a": ""#.utf8)
        started = true
    }
}


@Suite struct JSONParserMutationTests {
    /// Random byte edits of a valid payload either parse or fail with `.malformedJSON` (or a
    /// missing root key) and a position inside the input: never a crash, a hang or another error.
    @Test func mutatedInputParsesOrFailsCleanly() throws {
        let valid = Array(#"{"page": 1, "users": [{"id": 1, "name": "Gob \"G\" Bluth", "tags": ["a", "ü"], "score": -1.5e3, "x": null, "ok": true}, {"id": 2}]}"#.utf8)
        var generator = SeededGenerator(seed: 99)
        let alphabet = Array(#"{}[]:,"\\/ 0123456789.eE+-tfnul\u{0}"#.utf8) + [0xC3, 0xA9, 0xFF, 0x80, 0x0A]
        for round in 0..<3_000 {
            var bytes = valid
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "[")] }
            }
            let chunk = Int.random(in: 1...64, using: &generator)
            var parser = JSONParser(source: TinyChunks(bytes: bytes, size: chunk))
            do {
                while try parser.nextRecord(rootKey: round % 2 == 0 ? "users" : nil) != nil {}
            } catch {
                // A root key the (well-formed) top-level object lacks is named as such, not as malformed JSON.
                #expect(error.code == .malformedJSON || (error.code == .invalidValue && error.message.contains("(the root key)")), "round \(round): \(error)")
                #expect((0...bytes.count).contains(error.position?.offset ?? -1), "round \(round): \(error)")
            }
        }
    }
}

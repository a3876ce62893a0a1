import Foundation
import Testing
import TestSupport

/// `query --group-by`, `--aggregate` and `--distinct`: the library's aggregates in every output
/// format, and bad lists and unknown fields named.
@Suite struct AggregateCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-aggregate")
        let records: [[String: Any]] = [
            ["id": 1, "team": "red", "score": 10, "city": "Oslo"],
            ["id": 2, "team": "red", "score": 20, "city": "Bern"],
            ["id": 3, "team": "blue", "score": 5, "city": "Oslo"],
            ["id": 4, "team": "blue", "city": "Lima"],
            ["id": 5, "team": "green", "score": 7, "city": "Bern"],
        ]
        let path = dir.path("scores.json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store, path, "--entity", "Score"])
        try #require(result.status == 0, "\(result.error)")
    }

    func query(_ arguments: [String]) throws -> StrataCLI.Result {
        try StrataCLI.run(["query", store, "Score"] + arguments)
    }

    static let grouping = ["--group-by", "team", "--aggregate", "count, avg(score),max(score),sum(score),min(score),sum(id)"]

    @Test func groupsAsJSON() throws {
        let result = try query(Self.grouping + ["--format", "json"])
        #expect(result.status == 0, "\(result.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["team"] as? String } == ["blue", "green", "red"])
        #expect(rows.map { $0["count"] as? Int } == [2, 1, 2])
        #expect(rows.map { $0["avg(score)"] as? Double } == [5, 7, 15])
        #expect(rows.map { $0["max(score)"] as? Int } == [5, 7, 20])
        #expect(rows.map { $0["sum(score)"] as? Int } == [5, 7, 30])
        #expect(rows.map { $0["min(score)"] as? Int } == [5, 7, 10])
        #expect(rows.map { $0["sum(id)"] as? Int } == [7, 5, 3])   // a fifth aggregate: a second pass
    }

    @Test func groupsAsJSONLines() throws {
        let result = try query(Self.grouping + ["--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == """
            {"team":"blue","count":2,"avg(score)":5.0,"max(score)":5,"sum(score)":5,"min(score)":5,"sum(id)":7}
            {"team":"green","count":1,"avg(score)":7.0,"max(score)":7,"sum(score)":7,"min(score)":7,"sum(id)":5}
            {"team":"red","count":2,"avg(score)":15.0,"max(score)":20,"sum(score)":30,"min(score)":10,"sum(id)":3}

            """)
    }

    @Test(arguments: [("csv", ","), ("tsv", "\t")])
    func groupsDelimited(format: String, separator: String) throws {
        let result = try query(["--group-by", "team", "--aggregate", "count,avg(score)", "--format", format])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == ["team,count,avg(score)", "blue,2,5.0", "green,1,7.0", "red,2,15.0", ""]
            .joined(separator: "\n").replacingOccurrences(of: ",", with: separator))
    }

    @Test func groupsAsTable() throws {
        let result = try query(["--group-by", "team", "--format", "table"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == """
            team   count
            -----  -----
            blue   2
            green  1
            red    2
            (3 groups)

            """)
    }

    @Test func aggregatesOverEveryRecordWithAPredicate() throws {
        let result = try query(["city != \"Lima\"", "--aggregate", "count,sum(score),max(city)", "--format", "csv"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "count,sum(score),max(city)\n4,42,Oslo\n")
    }

    @Test(arguments: ["table", "json", "jsonl", "csv", "tsv"])
    func distinctValuesInEveryFormat(format: String) throws {
        let result = try query(["--distinct", "city", "--format", format])
        #expect(result.status == 0, "\(result.error)")
        let expected = switch format {
        case "table": "city\n----\nBern\nLima\nOslo\n(3 values)\n"
        case "json": "[\n  {\"city\":\"Bern\"},\n  {\"city\":\"Lima\"},\n  {\"city\":\"Oslo\"}\n]\n"
        case "jsonl": "{\"city\":\"Bern\"}\n{\"city\":\"Lima\"}\n{\"city\":\"Oslo\"}\n"
        default: "city\nBern\nLima\nOslo\n"
        }
        #expect(result.output == expected)
    }

    @Test(arguments: [
        ("count,avgg(score)", "'avgg(score)' at column 7: unknown function 'avgg'"),
        ("count,avg(score", "'avg(score' at column 7: '(' without its closing ')'"),
        ("count,,max(score)", "the term at column 7: an empty term"),
        ("sum", "'sum' at column 1: sum needs a field"),
        ("count(score)", "'count(score)' at column 1: count takes no field"),
    ])
    func badAggregateListsAreUsageErrorsNamingTheTerm(list: String, message: String) throws {
        let result = try query(["--group-by", "team", "--aggregate", list])
        #expect(result.status == 2)
        #expect(result.error.contains("--aggregate '\(list)': \(message)"), "\(result.error)")
    }

    @Test(arguments: [
        (["--group-by", "teem"], "group(by: teem): unknown field 'teem' in Score (did you mean 'team'?)"),
        (["--group-by", "team", "--aggregate", "max(scor)"], "max(scor): unknown field 'scor' in Score (did you mean 'score'?)"),
        (["--distinct", "citty"], "distinct(citty): unknown field 'citty' in Score (did you mean 'city'?)"),
    ])
    func unknownFieldsAreNamed(arguments: [String], message: String) throws {
        let result = try query(arguments)
        #expect(result.status == 1)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test func optionsThatDoNotGoTogetherAreRefused() throws {
        #expect(try query(["--group-by", "team", "--count"]).status == 2)
        #expect(try query(["--distinct", "team", "--aggregate", "count"]).status == 2)
        #expect(try query(["--group-by", "team", "--fields", "id"]).status == 2)
    }
}
